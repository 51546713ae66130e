package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/sse"
)

// pending is a content block still streaming.
type pending struct {
	start     object // content_block_start's block, members in order
	typ       string
	text      strings.Builder // text_delta / thinking_delta / input_json_delta
	signature strings.Builder
	citations []json.RawMessage
}

// finish rebuilds the block as the non-streaming API would have sent it:
// the start block's members in their order, with the streamed value filled in.
func (b *pending) finish() (json.RawMessage, error) {
	o := b.start
	switch b.typ {
	case "text":
		o = o.set("text", mustMarshal(b.text.String()))
		if len(b.citations) > 0 {
			o = o.set("citations", mustMarshal(b.citations))
		}
	case "thinking":
		o = o.set("thinking", mustMarshal(b.text.String()))
		if b.signature.Len() > 0 {
			o = o.set("signature", mustMarshal(b.signature.String()))
		}
	default:
		if b.text.Len() > 0 {
			in := []byte(b.text.String())
			if !json.Valid(in) {
				return nil, fmt.Errorf("%s block input is not valid JSON", b.typ)
			}
			o = o.set("input", compact(in))
		}
	}
	return o.MarshalJSON()
}

type streamEvent struct {
	Type         string          `json:"type"`
	Index        int             `json:"index"`
	ContentBlock json.RawMessage `json:"content_block"`
	Delta        struct {
		Type        string          `json:"type"`
		Text        string          `json:"text"`
		Thinking    string          `json:"thinking"`
		Signature   string          `json:"signature"`
		PartialJSON string          `json:"partial_json"`
		Citation    json.RawMessage `json:"citation"`
		StopReason  string          `json:"stop_reason"`
		Container   *wireContainer  `json:"container"`
	} `json:"delta"`
	Message struct {
		Usage     *wireUsage     `json:"usage"`
		Container *wireContainer `json:"container"`
	} `json:"message"`
	Usage *wireUsage `json:"usage"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// readStream consumes the SSE body. Blocks are handed to the parser as
// they stop; text is emitted as it streams. If the stream ends early, the
// message holds the complete blocks plus the text that arrived, and is
// marked Interrupted.
func readStream(body io.Reader, parser *contentParser, out *agent.Response, requestID string) (err error) {
	open := map[int]*pending{}
	r := sse.NewReader(body)
	defer func() {
		if err == nil {
			out.Message = parser.message()
			return
		}
		// Keep the text of blocks cut off mid-way: it was shown already and
		// is safe to replay. Half a tool call is not.
		idx := make([]int, 0, len(open))
		for i := range open {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for _, i := range idx {
			if b := open[i]; b.typ == "text" && b.text.Len() > 0 {
				if raw, ferr := b.finish(); ferr == nil {
					parser.add(raw)
				}
			}
		}
		out.Message = parser.message()
		out.Message.Interrupted = true
	}()
	for {
		ev, rerr := r.Next()
		if rerr != nil {
			if errors.Is(rerr, io.EOF) {
				return fmt.Errorf("anthropic: stream cut: the connection closed before message_stop: %w", io.ErrUnexpectedEOF)
			}
			return fmt.Errorf("anthropic: stream cut: %w", rerr)
		}
		data := []byte(strings.TrimSpace(string(ev.Data)))
		if len(data) == 0 {
			continue
		}
		var se streamEvent
		if err := json.Unmarshal(data, &se); err != nil {
			return fmt.Errorf("anthropic: stream cut: bad event %q: %w", ev.Name, err)
		}
		typ := se.Type
		if typ == "" {
			typ = ev.Name
		}
		switch typ {
		case "ping":
		case "message_start":
			se.Message.Usage.apply(&out.Usage)
			parser.container = se.Message.Container
		case "content_block_start":
			o, err := parseObject(se.ContentBlock)
			if err != nil {
				return fmt.Errorf("anthropic: stream cut: bad content_block_start: %w", err)
			}
			b := &pending{start: o, typ: blockType(se.ContentBlock)}
			open[se.Index] = b
		case "content_block_delta":
			b := open[se.Index]
			if b == nil {
				return fmt.Errorf("anthropic: stream cut: delta for unknown block %d", se.Index)
			}
			switch se.Delta.Type {
			case "text_delta":
				b.text.WriteString(se.Delta.Text)
				if se.Delta.Text != "" {
					parser.emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: se.Delta.Text})
				}
			case "thinking_delta":
				b.text.WriteString(se.Delta.Thinking)
				if se.Delta.Thinking != "" {
					parser.emit(agent.StreamEvent{Type: agent.EventReasoningDelta, Text: se.Delta.Thinking})
				}
			case "signature_delta":
				b.signature.WriteString(se.Delta.Signature)
			case "input_json_delta":
				b.text.WriteString(se.Delta.PartialJSON)
			case "citations_delta":
				b.citations = append(b.citations, compact(se.Delta.Citation))
			}
		case "content_block_stop":
			b := open[se.Index]
			if b == nil {
				return fmt.Errorf("anthropic: stream cut: stop for unknown block %d", se.Index)
			}
			delete(open, se.Index)
			raw, err := b.finish()
			if err != nil {
				// A tool call cut by max_tokens ends with half its input:
				// leave it out and say so; message_delta names the reason.
				if b.typ == "tool_use" {
					out.CutCall = true
					continue
				}
				return fmt.Errorf("anthropic: stream cut: %w", err)
			}
			parser.add(raw)
		case "message_delta":
			if se.Delta.StopReason != "" {
				out.StopReason = stopReason(se.Delta.StopReason)
			}
			if se.Delta.Container != nil {
				parser.container = se.Delta.Container
			}
			se.Usage.apply(&out.Usage)
		case "message_stop":
			if out.CutCall && out.StopReason != agent.StopMaxTokens {
				return errors.New("anthropic: stream cut: tool_use block input is not valid JSON")
			}
			return nil
		case "error":
			ae := &agent.APIError{
				Provider: providerName, Status: statusOf(se.Error.Type),
				Type: se.Error.Type, Message: se.Error.Message, RequestID: requestID,
			}
			if len(parser.raws) == 0 && len(open) == 0 {
				return ae // nothing arrived: the core may simply retry
			}
			return fmt.Errorf("anthropic: stream cut by an error event: %w", ae)
		}
	}
}
