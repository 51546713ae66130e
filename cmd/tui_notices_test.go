package cmd

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// A server that comes up in the background is said once ("MCP server tt
// is up (6 tools)"): not again as "tools of tt are ready" when the TUI
// picks its tools up between turns, nor as "tools of tt changed" when a
// turn sent before that picks them up at its start.
func TestTUIServerUpSaidOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		send bool // a turn goes out before any refresh
	}{
		{"between turns", false},
		{"at a turn's start", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			fake := anthropictest.NewServer(t)
			fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Hi."}))
			env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
			b := newTestTUIBackendWith(t, app.Options{Interactive: true}, env, "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"),
				"--mcp-config", testMCPConfig(t), "--mcp", "tt")
			var notes []string
			if tc.send {
				// The turn waits for the server's first listing, then
				// takes its tools.
				for ev := range b.Send(t.Context(), "hi") {
					if ev.Type == agent.EventWarning || ev.Type == agent.EventNotice {
						notes = append(notes, ev.Text)
					}
					// News, not a warning: the TUI marks warnings with "!".
					if strings.Contains(ev.Text, "is up") && ev.Type != agent.EventNotice {
						t.Errorf("%q came as a %s, want a notice", ev.Text, ev.Type)
					}
				}
			}
			up := func() bool {
				for _, n := range notes {
					if strings.Contains(n, "MCP server tt is up") {
						return true
					}
				}
				return false
			}
			refresh := func() {
				for _, n := range b.Refresh() {
					notes = append(notes, n.Text)
					if strings.Contains(n.Text, "is up") && n.Warning {
						t.Errorf("%q came as a warning, want news", n.Text)
					}
				}
			}
			for deadline := time.Now().Add(30 * time.Second); !up() && time.Now().Before(deadline); {
				refresh()
				if !up() {
					<-time.After(20 * time.Millisecond)
				}
			}
			if !up() {
				t.Fatalf("the server never came up: %q", notes)
			}
			// The refresh after the notice applies whatever was still pending.
			refresh()
			var about []string
			for _, n := range notes {
				if strings.Contains(n, "tt") {
					about = append(about, n)
				}
			}
			if len(about) != 1 {
				t.Errorf("notices about server tt: %q, want the one saying it is up", about)
			}
		})
	}
}
