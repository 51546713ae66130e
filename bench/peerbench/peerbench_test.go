package peerbench

import (
	"encoding/json"
	"strings"
	"testing"
)

// summary names a reply's blocks: type, and for a tool call its name and
// input, so a table can say what the scripted model answered.
func summary(t *testing.T, blocks []json.RawMessage) string {
	t.Helper()
	var out []string
	for _, raw := range blocks {
		var b struct {
			Type  string          `json:"type"`
			Name  string          `json:"name"`
			Text  string          `json:"text"`
			Input json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatal(err)
		}
		switch b.Type {
		case "tool_use", "server_tool_use":
			out = append(out, b.Type+" "+b.Name+" "+string(b.Input))
		case "text":
			out = append(out, "text "+b.Text)
		default:
			out = append(out, b.Type)
		}
	}
	return strings.Join(out, " | ")
}

func TestClaudeTurn(t *testing.T) {
	const (
		claudeTools = `"tools":[{"name":"Bash","input_schema":{}},{"name":"ToolSearch","input_schema":{}}]`
		nativeTools = `"tools":[{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"},{"name":"server-everything__echo","defer_loading":true,"input_schema":{}}]`
		twoTools    = `"tools":[{"name":"tool_search","input_schema":{}},{"name":"tool_call","input_schema":{}}]`
		user        = `{"role":"user","content":[{"type":"text","text":"echo"}]}`
	)
	result := func(content string) string {
		return `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":` + content + `}]}`
	}
	for _, tc := range []struct{ name, body, want string }{
		{"side request", `{"messages":[` + user + `]}`, "text ok"},
		{"Claude Code searches", `{"thinking":{"type":"enabled"},` + claudeTools + `,"messages":[` + user + `]}`,
			`thinking | tool_use ToolSearch {"max_results":5,"query":"select:mcp__server-everything__echo"}`},
		{"Claude Code calls the referenced tool", `{` + claudeTools + `,"messages":[` + user + `,{"role":"assistant","content":[]},` +
			result(`[{"type":"tool_reference","tool_name":"mcp__server-everything__echo"}]`) + `]}`,
			`tool_use mcp__server-everything__echo {"message":"hello"}`},
		{"Claude Code's text form", `{` + claudeTools + `,"messages":[` + user + `,{"role":"assistant","content":[]},` +
			result(`"<functions><function>{\"name\": \"mcp__server-everything__echo\"}</function></functions>"`) + `]}`,
			`tool_use mcp__server-everything__echo {"message":"hello"}`},
		{"answer after the echo", `{` + claudeTools + `,"messages":[` + user + `,{"role":"assistant","content":[]},` +
			result(`[{"type":"text","text":"ok: echo"}]`) + `]}`, "text hello"},
		{"agent, native search", `{` + nativeTools + `,"messages":[` + user + `]}`,
			`server_tool_use tool_search_tool_bm25 {"query":"echo"} | tool_search_tool_result | tool_use server-everything__echo {"message":"hello"}`},
		{"agent, two functions: search", `{` + twoTools + `,"messages":[` + user + `]}`,
			`tool_use tool_search {"query":"select:server-everything__echo"}`},
		{"agent, two functions: call", `{` + twoTools + `,"messages":[` + user + `,{"role":"assistant","content":[]},` +
			result(`[{"type":"text","text":"{\"tools\":[{\"name\":\"server-everything__echo_eu\"},{\"name\":\"server-everything__echo\"}]}"}]`) + `]}`,
			`tool_use tool_call {"arguments":{"message":"hello"},"name":"server-everything__echo"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := summary(t, claudeTurn([]byte(tc.body)).Content); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestLoadedEcho(t *testing.T) {
	for _, tc := range []struct{ name, tools, want string }{
		{"Codex's namespace", `[{"type":"namespace","name":"mcp__server_everything","tools":[{"type":"function","name":"echo_eu"},{"type":"function","name":"echo"}]}]`, "echo"},
		{"agent's namespace", `[{"type":"namespace","name":"server-everything","tools":[{"type":"function","name":"echo"}]}]`, "echo"},
		{"a function", `[{"type":"function","name":"server-everything__echo"}]`, "server-everything__echo"},
		{"another server's echo", `[{"type":"namespace","name":"mcp__other","tools":[{"type":"function","name":"echo"}]}]`, ""},
		{"only copies", `[{"type":"namespace","name":"mcp__server_everything","tools":[{"type":"function","name":"echo_eu"}]}]`, ""},
	} {
		var tools []json.RawMessage
		if err := json.Unmarshal([]byte(tc.tools), &tools); err != nil {
			t.Fatal(err)
		}
		if got := loadedEcho(tools); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
