package tui

import (
	"strings"
	"testing"
)

// A backend's notes are marked by their kind, wherever they are said: a
// warning with "!" (as the startup warnings), news unmarked. Between turns
// every note was an unmarked notice, so a server that failed a moment
// after the start ("quitter did not start") read as news under the one
// that failed at once ("! ghost did not start"), and at the start a
// server that was up read as a warning.
func TestNotesMarkedByKind(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 120, 40, Options{
		Warnings: []string{"MCP server ghost did not start: command not found"},
		News:     []string{"MCP server mem is up (9 tools)"},
	})
	m.Update(refreshedMsg{notes: []Note{
		{Text: "MCP server quitter did not start: the server exited (exit status 3)", Warning: true},
		{Text: "MCP server late is up (2 tools)"},
	}, info: b.Info()})
	f := frame(m)
	for _, want := range []string{"! MCP server ghost did not start", "! MCP server quitter did not start", "  MCP server mem is up", "  MCP server late is up"} {
		if !strings.Contains(f, want) {
			t.Errorf("%q is not in the frame:\n%s", want, f)
		}
	}
	for _, not := range []string{"! MCP server mem is up", "! MCP server late is up"} {
		if strings.Contains(f, not) {
			t.Errorf("news marked as a warning, %q:\n%s", not, f)
		}
	}
}
