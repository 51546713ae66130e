package cmd

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// A server that comes up in the background is said once ("MCP server tt
// is up (6 tools)"), not again as "tools of tt are ready" when the TUI
// picks its tools up between turns.
func TestTUIServerUpSaidOnce(t *testing.T) {
	isolate(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	b := newTestTUIBackendWith(t, app.Options{Interactive: true}, env, "--base-url", "http://127.0.0.1:1", "--db", filepath.Join(t.TempDir(), "a.db"),
		"--mcp-config", testMCPConfig(t), "--mcp", "tt")
	var notes []string
	up := func() bool {
		for _, n := range notes {
			if strings.Contains(n, "MCP server tt is up") {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(30 * time.Second); !up() && time.Now().Before(deadline); {
		notes = append(notes, b.Refresh()...)
		if !up() {
			<-time.After(20 * time.Millisecond)
		}
	}
	if !up() {
		t.Fatalf("the server never came up: %q", notes)
	}
	// The refresh after the notice applies whatever was still pending.
	notes = append(notes, b.Refresh()...)
	var about []string
	for _, n := range notes {
		if strings.Contains(n, "tt") {
			about = append(about, n)
		}
	}
	if len(about) != 1 {
		t.Errorf("notices about server tt: %q, want the one saying it is up", about)
	}
}
