package cmd

import (
	"bytes"
	"path/filepath"
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
	ts.waitFor("waiting for tt to list tools")
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
