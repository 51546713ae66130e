package app

import (
	"strings"
	"testing"

	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// #14 case 7: in the TUI, a server named with --mcp that fails to start
// (in the background) is sent to the TUI as an error, at once.
func TestNamedServerFailureIsATUIAlert(t *testing.T) {
	rt := &App{alerts: make(chan string, 1), settings: Settings{MCP: []string{"broken"}}}
	rt.onMCPEvent(mcptools.Event{Kind: mcptools.EventWarning, Server: "broken", Text: "MCP server broken did not start: exit status 3"})
	rt.onMCPEvent(mcptools.Event{Kind: mcptools.EventWarning, Server: "other", Text: "MCP server other did not start"})
	select {
	case a := <-rt.alerts:
		if !strings.Contains(a, "broken did not start") || !strings.Contains(a, "named with --mcp") {
			t.Errorf("alert = %q", a)
		}
	default:
		t.Fatal("no alert for the named server")
	}
	if n := rt.Notices(); len(n) != 1 || !strings.Contains(n[0], "other") {
		t.Errorf("notices = %q", n)
	}
}

// #18 bug 7: /model gpt-4o on anthropic is refused with the provider
// that serves it; unknown ids (proxies, new models) pass.
func TestSetModelChecksTheVendor(t *testing.T) {
	t.Parallel()
	if err := servedBy("anthropic", "gpt-4o"); err == nil || !strings.Contains(err.Error(), "/model openai:gpt-4o") {
		t.Errorf("gpt-4o on anthropic: %v", err)
	}
	for _, ok := range [][2]string{{"anthropic", "claude-sonnet-4-5"}, {"anthropic", "my-proxy-alias"}, {"openrouter", "openai/gpt-4o"}, {"openai", "gpt-4.1"}} {
		if err := servedBy(ok[0], ok[1]); err != nil {
			t.Errorf("%s on %s refused: %v", ok[1], ok[0], err)
		}
	}
}

// #18 bug 7: the default model (and so the over-threshold figure of agent
// tools, a share of its context window) does not depend on a key being set.
func TestDefaultModelWithoutKey(t *testing.T) {
	t.Parallel()
	for _, prov := range []string{"anthropic", "openai", "gemini"} {
		without := func(string) string { return "" }
		with := func(string) string { return "k" }
		_, m1, err := NewProvider(Settings{}, prov, without)
		if err == nil {
			t.Fatalf("%s: no error without a key", prov)
		}
		_, m2, err := NewProvider(Settings{}, prov, with)
		if err != nil || m1 != m2 || (Settings{}).deferBudget(m1) != (Settings{}).deferBudget(m2) {
			t.Errorf("%s: default model %q without a key, %q with one (%v)", prov, m1, m2, err)
		}
	}
}

// #18 bug 7: the resume hint names what the session cannot store.
func TestResumeCommandNamesServers(t *testing.T) {
	t.Parallel()
	got := ResumeCommand(Settings{DBPath: "/tmp/my db.sqlite", MCPConfig: "/etc/mcp.json", MCP: []string{"gh", "fs"}, Defer: "auto"}, "abc")
	want := "agent --resume abc --db '/tmp/my db.sqlite' --mcp-config /etc/mcp.json --mcp gh --mcp fs --defer=auto"
	if got != want {
		t.Errorf("resume command\n got %s\nwant %s", got, want)
	}
}
