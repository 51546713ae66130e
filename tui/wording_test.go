package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/themes"
)

// A search's chat line counts what it found in words that agree: "1 tool".
func TestSearchLineCount(t *testing.T) {
	for _, tc := range []struct {
		found []ToolInfo
		want  string
	}{
		{nil, "→ 0 tools"},
		{[]ToolInfo{{Name: "gh__list"}}, "→ 1 tool: gh__list"},
		{[]ToolInfo{{Name: "a"}, {Name: "b"}}, "→ 2 tools: a, b"},
	} {
		s := &searchEntry{Where: "client", Query: "q", Found: tc.found}
		got := ansi.Strip(strings.Join(s.chatLine(themes.Plain(), 120), "\n"))
		if !strings.Contains(got, tc.want) {
			t.Errorf("%d found: %q, want %q", len(tc.found), got, tc.want)
		}
	}
}
