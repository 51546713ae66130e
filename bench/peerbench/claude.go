package peerbench

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// claudeTurn is the scripted Anthropic model's answer to one request of
// either client: search the deferred tools with the client's own search
// tool, call the echo tool it found, then answer. It reads the request,
// not a counter, so the same handler serves agent and Claude Code and any
// side request (a title, a quota probe: no tools) gets a short text.
//
//   - A native search tool (type tool_search_tool_*, what agent sends):
//     the fake runs the search server-side and the call follows in the
//     same response, as the API does.
//   - Claude Code's own ToolSearch (a custom tool whose tool_result holds
//     tool_reference blocks): call it, then call the referenced tool.
func claudeTurn(s *anthropictest.Server, r *anthropictest.Request) anthropictest.Reply {
	var tools []struct {
		Type         string `json:"type"`
		Name         string `json:"name"`
		DeferLoading bool   `json:"defer_loading"`
	}
	_ = json.Unmarshal(r.Tools(), &tools)
	native, custom, echo := "", "", ""
	for _, t := range tools {
		switch {
		case strings.HasPrefix(t.Type, "tool_search_tool_"):
			native = t.Name
		case t.Type == "" && (t.Name == "ToolSearch" || t.Name == "tool_search"):
			custom = t.Name
		case t.Type == "" && isEcho(t.Name):
			echo = t.Name
		}
	}
	var req struct {
		Thinking struct {
			Type string `json:"type"`
		} `json:"thinking"`
	}
	_ = json.Unmarshal(r.Body, &req)
	msgs := r.Messages()
	// A thinking model thinks first on every response (the fake requires
	// the block back when the turn goes on after a tool call).
	var pre []json.RawMessage
	if req.Thinking.Type == "enabled" || req.Thinking.Type == "adaptive" {
		pre = append(pre, anthropictest.ThinkingBlock(fmt.Sprintf("Step %d.", len(msgs))))
	}
	reply := func(bs ...json.RawMessage) anthropictest.Reply {
		return anthropictest.Message(append(pre, bs...)...)
	}
	if native == "" && custom == "" && echo == "" {
		return reply(anthropictest.Text("ok"))
	}
	call := map[string]any{"message": "hello"}
	for _, b := range lastUserBlocks(msgs) {
		if b.Type != "tool_result" {
			continue
		}
		if ref := found(b.Content); ref != "" {
			return reply(anthropictest.ToolUse(toolID(len(msgs)), ref, call))
		}
		return reply(anthropictest.Text("hello"))
	}
	switch {
	case native != "":
		in := map[string]any{"query": "echo"}
		if strings.Contains(native, "regex") {
			in = map[string]any{"pattern": "echo"}
		}
		id := "srvtoolu_" + toolID(len(msgs))[len("toolu_"):]
		use, _ := json.Marshal(map[string]any{"type": "server_tool_use", "id": id, "name": native, "input": in})
		// The API's answer: the search result, then the call of the tool.
		return reply(use, anthropictest.SearchResult(id, echoName(tools)), anthropictest.ToolUse(toolID(len(msgs)), echoName(tools), call))
	case custom != "":
		// Claude Code's ToolSearch selects by exact name with "select:".
		return reply(anthropictest.ToolUse(toolID(len(msgs)), custom, map[string]any{"query": "select:mcp__server-everything__echo", "max_results": 5}))
	}
	return reply(anthropictest.ToolUse(toolID(len(msgs)), echo, call))
}

// isEcho reports whether name is the catalog's server-everything echo tool
// as a client names it (agent: server-everything__echo; Claude Code:
// mcp__server-everything__echo), not one of its regional copies.
func isEcho(name string) bool {
	return strings.HasSuffix(name, "server-everything__echo")
}

func echoName(tools []struct {
	Type         string `json:"type"`
	Name         string `json:"name"`
	DeferLoading bool   `json:"defer_loading"`
}) string {
	for _, t := range tools {
		if isEcho(t.Name) {
			return t.Name
		}
	}
	return ""
}

type block struct {
	Type    string          `json:"type"`
	Content json.RawMessage `json:"content"`
}

// lastUserBlocks are the content blocks of the last message when it is the
// user's.
func lastUserBlocks(msgs []json.RawMessage) []block {
	if len(msgs) == 0 {
		return nil
	}
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(msgs[len(msgs)-1], &m)
	var bs []block
	if m.Role == "user" {
		_ = json.Unmarshal(m.Content, &bs)
	}
	return bs
}

// found is the echo tool a search's tool_result loaded: named by a
// tool_reference block, or, as Claude Code's ToolSearch answers when the
// API's references are off, in the text of its <functions> block.
func found(content json.RawMessage) string {
	var items []struct {
		Type     string `json:"type"`
		ToolName string `json:"tool_name"`
		Text     string `json:"text"`
	}
	var text string
	if json.Unmarshal(content, &items) != nil {
		_ = json.Unmarshal(content, &text)
	}
	for _, it := range items {
		if it.Type == "tool_reference" && isEcho(it.ToolName) {
			return it.ToolName
		}
		text += it.Text
	}
	if strings.Contains(text, `"mcp__server-everything__echo"`) {
		return "mcp__server-everything__echo"
	}
	return ""
}

func toolID(n int) string {
	return "toolu_" + strings.Repeat("0", 3) + string(rune('a'+n%26)) + "peerbench"
}
