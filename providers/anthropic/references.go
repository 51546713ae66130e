package anthropic

import "encoding/json"

// availableRefs replays a native search's result block without its
// references to tools this request does not carry: a tool found earlier
// whose server was since removed or disabled (/mcp disable), or renamed.
// The API expands every tool_reference in the history and refuses one it
// cannot ("Tool reference 'NAME' not found in available tools", the tool
// search tool's errors; anthropics/claude-code#81863), so the session
// failed on every request after. A search that found nothing still here
// reads as one that matched nothing, which the API takes.
func (h *historyRenderer) availableRefs(b block) json.RawMessage {
	var c struct {
		Type string            `json:"type"`
		Refs []json.RawMessage `json:"tool_references"`
	}
	if json.Unmarshal(b.Content, &c) != nil || c.Type != "tool_search_tool_search_result" {
		return b.raw
	}
	kept := make([]json.RawMessage, 0, len(c.Refs))
	for _, r := range c.Refs {
		var ref struct {
			ToolName string `json:"tool_name"`
		}
		_ = json.Unmarshal(r, &ref)
		if h.known(ref.ToolName) {
			kept = append(kept, r)
		}
	}
	if len(kept) == len(c.Refs) {
		return b.raw
	}
	content, err := parseObject(b.Content)
	if err != nil {
		return b.raw
	}
	o, err := parseObject(b.raw)
	if err != nil {
		return b.raw
	}
	content = content.set("tool_references", mustMarshal(kept))
	return mustMarshal(o.set("content", mustMarshal(content)))
}
