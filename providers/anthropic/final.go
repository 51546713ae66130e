package anthropic

import (
	"encoding/json"
	"strings"
)

// trimFinalAssistant trims the whitespace that ends a request's last
// message when that is the assistant's: a paused turn (pause_turn) goes
// back last for the API to go on, and its text may end with a space or a
// newline, which the API refuses there ("messages: final assistant content
// cannot end with trailing whitespace", tailcallhq/forgecode#1872,
// anomalyco/opencode#1295). A text block left empty is dropped, as the
// API refuses empty text blocks too.
func trimFinalAssistant(out []wireMessage) []wireMessage {
	n := len(out)
	if n == 0 || out[n-1].Role != "assistant" {
		return out
	}
	c := out[n-1].Content
	for len(c) > 0 && blockType(c[len(c)-1]) == "text" {
		var b struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(c[len(c)-1], &b)
		t := strings.TrimRight(b.Text, " \t\r\n")
		if t == b.Text {
			break
		}
		if t != "" {
			if o, err := parseObject(c[len(c)-1]); err == nil {
				c[len(c)-1] = mustMarshal(o.set("text", mustMarshal(t)))
			}
			break
		}
		c = c[:len(c)-1]
	}
	out[n-1].Content = c
	if len(c) == 0 {
		return out[:n-1]
	}
	return out
}
