package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// #27 under tmux: in the real TUI a server with no cached catalog holds
// the first request (the screen says whom it waits for) until it has listed
// its tools, and that first request carries them.
func TestFirstRequestWaitsForUncachedServerInTmux(t *testing.T) {
	isolate(t)
	cfg, gate := gatedMCPConfig(t)
	t.Cleanup(gate.Open) // let the server process end
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Hello from the fake."}))
	ts := startTmux(t, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL,
		"--db", filepath.Join(t.TempDir(), "a.db"), "--mcp-config", cfg, "--mcp", "tt")
	ts.waitFor("/help")
	ts.send("What is the weather in Berlin?", "Enter")
	ts.waitFor("waiting for tt · esc sends without them")
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("%d requests went out while tt was starting", n)
	}
	gate.Open()
	ts.waitFor("Hello from the fake.")
	reqs := fake.Requests()
	if len(reqs) == 0 || !bytes.Contains(reqs[0].Tools(), []byte("tt__get_weather")) {
		t.Fatalf("the first request lacks tt's tools (%d requests)", len(reqs))
	}
	ts.quit()
}

// rememberedSession runs one -p turn with the tt server from a config file,
// then removes the file: the session's ID is all that is left to find tt.
func rememberedSession(t *testing.T, fake *anthropictest.Server, db string) string {
	t.Helper()
	mcp := testMCPConfig(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "hi"}))
	res := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey},
		"-p", "hello", "--provider", "anthropic", "--base-url", fake.URL, "--mcp-config", mcp, "--mcp", "tt", "--db", db, "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if err := os.Remove(mcp); err != nil {
		t.Fatal(err)
	}
	return decodePrint(t, res.stdout).SessionID
}

// #27 under tmux: agent sessions compact needs no server; with tt's config
// gone and its variable unset it still compacts, and speaks of no server.
func TestSessionsCompactWithoutServersInTmux(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	db := filepath.Join(t.TempDir(), "a.db")
	id := rememberedSession(t, fake, db)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "A summary of the greeting."}))
	ts := startTmux(t, tmuxEnv(), "sessions", "compact", id, "--base-url", fake.URL, "--db", db)
	// The output may scroll past the screen: read the scrollback too.
	ts.waitFor("A summary of the greeting.")
	screen := ts.history()
	if !strings.Contains(screen, "Compacted session "+id) {
		t.Fatalf("compact did not report the compaction:\n%s", screen)
	}
	if strings.Contains(screen, "MCP server") || strings.Contains(screen, "tools changed") {
		t.Errorf("compact spoke of servers:\n%s", screen)
	}
}
