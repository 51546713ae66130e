package anthropic

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Call ids as the API takes them: each matches ^[a-zA-Z0-9_-]+$ and is used
// once in a request. Another provider's ids need not be either: Chat
// servers put dots and colons in them ("functions.read:0") and some number
// every response's calls from zero, so a conversation carried here holds
// call_0 in one assistant message after another.

// convertedID names the client-form twin of a provider search call. It
// never keeps the srvtoolu_ prefix: a tool_result for such an id is a 400.
func convertedID(id string) string {
	return "toolu_search_" + sanitizeID(strings.TrimPrefix(id, "srvtoolu_"))
}

// sanitizeID fits another provider's call id to ^[a-zA-Z0-9_-]+$.
func sanitizeID(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "toolu_missing"
	}
	return string(b)
}

// uniqueIDs renames a tool_use whose id an earlier tool_use of the request
// has, and its tool_result with it: the API answers "`tool_use` ids must be
// unique" (anthropics/claude-code#20573; openclaw/openclaw#4700 for a
// history that repeats an id; NVIDIA-NeMo/Switchyard#502 for a Chat server
// that names every call call_0), and two ids sanitizeID made alike ("a.1",
// "a:1") collide the same way. The first use keeps its id, so a history
// without repeats is unchanged; a repeated id's results, in the message
// after its call, take the new ids in the order of the calls.
func uniqueIDs(in []wireMessage) []wireMessage {
	seen := map[string]bool{}
	for i := range in {
		if in[i].Role != "assistant" {
			continue
		}
		renamed := map[string][]string{} // old id → ids its uses now have, in order
		changed := false
		for j, raw := range in[i].Content {
			if blockType(raw) != "tool_use" {
				continue
			}
			var b block
			_ = json.Unmarshal(raw, &b)
			id := b.ID
			if seen[id] {
				id = freshID(b.ID, seen)
				if o, err := parseObject(raw); err == nil {
					in[i].Content[j] = mustMarshal(o.set("id", mustMarshal(id)))
					changed = true
				}
			}
			seen[id] = true
			renamed[b.ID] = append(renamed[b.ID], id)
		}
		if !changed || i+1 >= len(in) || in[i+1].Role != "user" {
			continue
		}
		next := in[i+1].Content
		for j, raw := range next {
			if blockType(raw) != "tool_result" {
				continue
			}
			var b block
			_ = json.Unmarshal(raw, &b)
			ids := renamed[b.ToolUseID]
			if len(ids) == 0 {
				continue
			}
			renamed[b.ToolUseID] = ids[1:]
			if ids[0] == b.ToolUseID {
				continue
			}
			if o, err := parseObject(raw); err == nil {
				next[j] = mustMarshal(o.set("tool_use_id", mustMarshal(ids[0])))
			}
		}
	}
	return in
}

// freshID is id with the first suffix _2, _3, ... no call of the request has.
func freshID(id string, seen map[string]bool) string {
	for n := 2; ; n++ {
		if c := id + "_" + strconv.Itoa(n); !seen[c] {
			return c
		}
	}
}
