package openairesponses

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/agent-dev/agent/agent"
)

// maxCallID is the longest call_id the API takes: a longer one is a 400
// "string_above_max_length" on input[N].call_id (AnswerDotAI/fastllm#45,
// decolua/9router#393), on every later request of the conversation.
const maxCallID = 64

// wireCallID is the call_id a call made elsewhere goes out with. Another
// provider's ids can be longer (some Chat servers and proxies make ids of
// 80 to 450 characters: NousResearch/hermes-agent#73538,
// bastani-inc/atomic#2204) or empty; those map to a short id of their own,
// the same on every request, so a call and its output still match.
func wireCallID(id string) string {
	if id != "" && len(id) <= maxCallID {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "call_" + hex.EncodeToString(sum[:16])
}

// repeatsCallID reports whether two calls of msgs share an id: histories
// from elsewhere can (sessions stored before the Gemini adapter made its
// ids unique, where Vertex AI had numbered every answer's calls from
// call_1; Chat servers that name each response's calls call_0).
func repeatsCallID(msgs []agent.Message) bool {
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			id := ""
			switch {
			case p.ToolCall != nil:
				id = p.ToolCall.ID
			case p.SearchCall != nil:
				id = p.SearchCall.ID
			default:
				continue
			}
			if seen[id] {
				return true
			}
			seen[id] = true
		}
	}
	return false
}

// uniqueCallIDs gives a call whose call_id an earlier call of the input
// has a fresh one (the id with _2, _3, ...: the same on every request, so
// the cached prefix holds), and its output with it: the API takes one
// output per call_id ("Duplicate function_call_output for call_id",
// NousResearch/hermes-agent#102629, mnfst/llm-gateway#2858). An output
// answers the oldest unanswered call of its id, which is the order the
// renderer puts them in. The first use keeps its id, so an input without
// repeats is unchanged.
func uniqueCallIDs(in []json.RawMessage) []json.RawMessage {
	var head struct {
		Type      string  `json:"type"`
		CallID    *string `json:"call_id"`
		Execution string  `json:"execution"`
	}
	taken := map[string]bool{}
	for _, raw := range in {
		head.CallID = nil
		if json.Unmarshal(raw, &head) == nil && head.CallID != nil {
			taken[*head.CallID] = true
		}
	}
	called := map[string]bool{}
	open := map[string][]string{} // call_id → wire ids of its unanswered calls
	for i, raw := range in {
		head.CallID, head.Execution = nil, ""
		if json.Unmarshal(raw, &head) != nil || head.CallID == nil {
			continue
		}
		id := *head.CallID
		switch {
		case head.Type == "function_call", head.Type == "tool_search_call" && head.Execution == "client":
			wire := id
			if called[id] {
				for n := 2; ; n++ {
					if c := wireCallID(id + "_" + strconv.Itoa(n)); !taken[c] {
						wire = c
						break
					}
				}
				taken[wire] = true
				in[i] = withField(raw, "call_id", wire)
			}
			called[id] = true
			open[id] = append(open[id], wire)
		case head.Type == "function_call_output", head.Type == "tool_search_output" && head.Execution == "client":
			q := open[id]
			if len(q) == 0 {
				continue
			}
			open[id] = q[1:]
			if q[0] != id {
				in[i] = withField(raw, "call_id", q[0])
			}
		}
	}
	return in
}
