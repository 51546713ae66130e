package demo

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// The demo's answers count the tools a search found in words that agree
// with the count: "found 1 tool", not "found 1 tools".
func TestFoundCountsAgree(t *testing.T) {
	for _, c := range []struct {
		tools      []string
		call, none string
	}{
		{[]string{"a"}, "The search found 1 tool: **a** (srv). Calling it.", "found 1 tool, which does not fit."},
		{[]string{"a", "b"}, "The search found 2 tools; **a** (srv) fits best. Calling it.", "found 2 tools, none of which fits."},
	} {
		if got := foundText(len(c.tools), agent.ToolDef{Name: "a", Server: "srv"}); got != c.call {
			t.Errorf("%d tools: %q, want %q", len(c.tools), got, c.call)
		}
		if got := noTool(&agent.SearchResult{Tools: c.tools}, "hello"); !strings.Contains(got, c.none) {
			t.Errorf("%d tools: %q, want it to say %q", len(c.tools), got, c.none)
		}
	}
}
