package tui

import (
	"strings"
	"testing"
)

// #14 case 7: an error from outside a turn (a server named with --mcp that
// failed to start in the background) shows in the chat at once.
func TestAlertShowsAsError(t *testing.T) {
	m, _, _ := newTestModel(t, &fakeBackend{}, 100, 30, Options{})
	m.Update(alertMsg{Text: "MCP server broken did not start: the server exited (exit status 3)"})
	if f := frame(m); !strings.Contains(f, "MCP server broken did not start") {
		t.Fatalf("the alert is not shown:\n%s", f)
	}
}
