package peerbench

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// claudeTurn is the scripted Anthropic model's answer to one request body
// of either client: search the deferred tools with the client's own search
// tool, call the echo tool it found, then answer. It reads the request,
// not a counter, so the same handler serves agent and Claude Code, and a
// side request (a title, a quota probe: no tools) gets a short text.
//
//   - A native search tool (type tool_search_tool_*, agent under its wire
//     budget): the fake runs the search server-side and the call follows
//     in the same response, as the API does.
//   - agent's two-function form (tool_search + tool_call, past the wire
//     budget): search, then call through tool_call.
//   - Claude Code's ToolSearch (a custom tool whose tool_result holds
//     tool_reference blocks): call it, then call the referenced tool.
func claudeTurn(body []byte) anthropictest.Reply {
	var req struct {
		Tools []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Thinking struct {
			Type string `json:"type"`
		} `json:"thinking"`
	}
	_ = json.Unmarshal(body, &req)
	native, search, echo, twoFunctions := "", "", "", false
	for _, t := range req.Tools {
		switch {
		case strings.HasPrefix(t.Type, "tool_search_tool_"):
			native = t.Name
		case t.Type == "" && (t.Name == "ToolSearch" || t.Name == "tool_search"):
			search = t.Name
		case t.Type == "" && t.Name == "tool_call":
			twoFunctions = true
		case t.Type == "" && isEcho(t.Name):
			echo = t.Name
		}
	}
	n := len(req.Messages)
	// A thinking model thinks first on every response (the fake requires
	// the block back when the turn goes on after a tool call).
	var pre []json.RawMessage
	if req.Thinking.Type == "enabled" || req.Thinking.Type == "adaptive" {
		pre = append(pre, anthropictest.ThinkingBlock(fmt.Sprintf("Step %d.", n)))
	}
	reply := func(bs ...json.RawMessage) anthropictest.Reply {
		return anthropictest.Message(append(pre, bs...)...)
	}
	if native == "" && search == "" && echo == "" {
		return reply(anthropictest.Text("ok"))
	}
	args := map[string]any{"message": "hello"}
	call := func(name string) json.RawMessage {
		if twoFunctions {
			return anthropictest.ToolUse(toolID(n), "tool_call", map[string]any{"name": name, "arguments": args})
		}
		return anthropictest.ToolUse(toolID(n), name, args)
	}
	if n > 0 && req.Messages[n-1].Role == "user" {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(req.Messages[n-1].Content, &blocks)
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			if name := found(b.Content); name != "" {
				return reply(call(name))
			}
			return reply(anthropictest.Text("hello"))
		}
	}
	switch {
	case native != "":
		in := map[string]any{"query": "echo"}
		if strings.Contains(native, "regex") {
			in = map[string]any{"pattern": "echo"}
		}
		id := fmt.Sprintf("srvtoolu_peerbench%04d", n)
		use, _ := json.Marshal(map[string]any{"type": "server_tool_use", "id": id, "name": native, "input": in})
		// The API's answer: the search result, then the call of the tool.
		return reply(use, anthropictest.SearchResult(id, "server-everything__echo"), call("server-everything__echo"))
	case search == "ToolSearch":
		// Claude Code's ToolSearch selects by exact name with "select:".
		return reply(anthropictest.ToolUse(toolID(n), search, map[string]any{"query": "select:mcp__server-everything__echo", "max_results": 5}))
	case search != "":
		return reply(anthropictest.ToolUse(toolID(n), search, map[string]any{"query": "select:server-everything__echo"}))
	}
	return reply(call(echo))
}

// isEcho reports whether name is the catalog's server-everything echo tool
// as a client names it (agent: server-everything__echo; Claude Code:
// mcp__server-everything__echo), not one of its regional copies.
func isEcho(name string) bool {
	return strings.HasSuffix(name, "server-everything__echo")
}

// found is the echo tool a search's tool_result loaded: named by a
// tool_reference block (the API's and Claude Code's ToolSearch), in the
// JSON text agent's tool_search answers with ({"tools":[{"name":...}]}),
// or in the text of Claude Code's <functions> block when references are
// off. "" when the result is not a search's (the echo tool's own).
func found(content json.RawMessage) string {
	var items []struct {
		Type     string `json:"type"`
		ToolName string `json:"tool_name"`
		Text     string `json:"text"`
	}
	var texts []string
	if json.Unmarshal(content, &items) != nil {
		var s string
		_ = json.Unmarshal(content, &s)
		texts = append(texts, s)
	}
	for _, it := range items {
		if it.Type == "tool_reference" && isEcho(it.ToolName) {
			return it.ToolName
		}
		texts = append(texts, it.Text)
	}
	for _, t := range texts {
		var listed struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if json.Unmarshal([]byte(t), &listed) == nil {
			for _, l := range listed.Tools {
				if isEcho(l.Name) {
					return l.Name
				}
			}
		}
		if strings.Contains(t, `"mcp__server-everything__echo"`) {
			return "mcp__server-everything__echo"
		}
	}
	return ""
}

// toolID is a tool_use id unique within a conversation of n messages.
func toolID(n int) string { return fmt.Sprintf("toolu_peerbench%04d", n) }
