package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/tools/permission"
)

// Plan mode leaves out the hosted tools that act (code execution, the MCP
// connector), which the provider would run without asking, and keeps those
// that read (web search, web fetch, a raw tool search tool). The tools
// array changes only when the mode does, at the next turn: the same bytes
// on every request in one mode.
func TestPlanModeDropsActingHostedTools(t *testing.T) {
	f := newFixture(t, false)
	f.fake.Script = anthropictest.NewScript(anthropictest.Turn{Text: "a"}, anthropictest.Turn{Text: "b"}, anthropictest.Turn{Text: "c"}, anthropictest.Turn{Text: "d"})
	a := f.open(t, func(fl *Flags) {
		fl.ProviderTools = []string{"web_search", "code_execution", "web_fetch",
			`{"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}`,
			`mcp:{"name": "docs", "url": "https://docs.example.com/mcp"}`}
	})
	turn := func(prompt string) string {
		t.Helper()
		if err := a.Print(t.Context(), prompt, PrintOptions{Format: "text", Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}); err != nil {
			t.Fatal(err)
		}
		reqs := f.fake.Requests()
		return string(reqs[len(reqs)-1].Tools())
	}
	acting := []string{"code_execution_20250825", "mcp_toolset"}
	reading := []string{"web_search_20250305", "web_fetch_20250910", "tool_search_tool_regex_20251119"}
	has := func(tools string, types []string, want bool) {
		t.Helper()
		for _, typ := range types {
			if strings.Contains(tools, `"`+typ+`"`) != want {
				t.Errorf("tools array has %s: %v, want %v\n%s", typ, !want, want, tools)
			}
		}
	}
	before := turn("default mode")
	has(before, append(acting, reading...), true)
	if err := a.SetPermissionMode(permission.ModePlan); err != nil {
		t.Fatal(err)
	}
	plan := turn("plan mode")
	has(plan, reading, true)
	has(plan, acting, false)
	if again := turn("plan mode again"); again != plan {
		t.Errorf("the tools array changed within plan mode:\n%s\n%s", plan, again)
	}
	if err := a.SetPermissionMode(permission.ModeDefault); err != nil {
		t.Fatal(err)
	}
	if after := turn("default again"); after != before {
		t.Errorf("back in default mode, the tools array is not the one before plan mode:\n%s\n%s", before, after)
	}
	// The session keeps the configured tools, not plan mode's.
	if got := len(a.Meta().Settings.ProviderTools); got != 5 {
		t.Errorf("stored provider tools %d, want 5", got)
	}
}
