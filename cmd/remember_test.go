package cmd

import (
	"os"
	"strings"
	"testing"

	"path/filepath"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// #27: a session remembers its servers. --resume without the --mcp-config
// that defined them reconnects them from the stored definition (the
// environment is read again by name), names what cannot come back, and
// sessions compact needs no server at all.
func TestResumeRemembersServers(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "AGENT_TEST_MCP_SERVER": "1"}
	db := filepath.Join(t.TempDir(), "agent.db")
	mcp := testMCPConfig(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "hi"}))
	res := runAgent(t, env, "-p", "hello", "--base-url", fake.URL, "--mcp-config", mcp, "--mcp", "tt", "--db", db, "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	id := decodePrint(t, res.stdout).SessionID
	if err := os.Remove(mcp); err != nil {
		t.Fatal(err)
	}

	// The config file is gone: the server comes back from the session.
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "tt__get_weather", Input: map[string]any{"city": "Oslo"}},
		anthropictest.Turn{Text: "Done."},
	))
	res = runAgent(t, env, "-p", "weather in Oslo", "--resume", id, "--base-url", fake.URL, "--db", db, "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("resume without the config: exit %d: %s", res.code, res.stderr)
	}
	out := decodePrint(t, res.stdout)
	if len(out.ToolCalls) != 1 || out.ToolCalls[0].IsError {
		t.Fatalf("the remembered server did not answer: %+v\n%s", out.ToolCalls, res.stderr)
	}
	if !strings.Contains(strings.Join(out.Warnings, "\n"), "MCP server tt is not configured here: started from this session's definition") {
		t.Errorf("warnings %q", out.Warnings)
	}

	// Without the variable it was given, the server is named, not started,
	// and the run goes on without it.
	delete(env, "AGENT_TEST_MCP_SERVER")
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "ok"}))
	res = runAgent(t, env, "-p", "anything else?", "--continue", "--base-url", fake.URL, "--db", db, "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("--continue without the variable: exit %d: %s", res.code, res.stderr)
	}
	w := strings.Join(decodePrint(t, res.stdout).Warnings, "\n")
	if !strings.Contains(w, "MCP server tt of this session is not configured here, and the session does not keep its environment AGENT_TEST_MCP_SERVER") ||
		!strings.Contains(w, "--mcp-config "+mcp) {
		t.Errorf("warnings %q", w)
	}

	// A prompt naming a tool of the missing server is a usage error.
	res = runAgent(t, env, "-p", "call tt__get_weather for Rome", "--continue", "--base-url", fake.URL, "--db", db)
	if res.code != 2 || !strings.Contains(res.stderr, "names a tool of MCP server tt") {
		t.Errorf("prompt naming a missing server's tool: exit %d: %s", res.code, res.stderr)
	}
	// It is found once the run has begun (the session resumed): with
	// --output-format json the result says so, as any failed run's does.
	res = runAgent(t, env, "-p", "call tt__get_weather for Rome", "--continue", "--base-url", fake.URL, "--db", db, "--output-format", "json")
	if r := decodePrint(t, res.stdout); res.code != 2 || !r.IsError || !strings.Contains(r.Error, "names a tool of MCP server tt") || r.SessionID != id || r.NumRequests != 0 {
		t.Errorf("json: exit %d, is_error %v, error %q, session %q (want %q), %d requests", res.code, r.IsError, r.Error, r.SessionID, id, r.NumRequests)
	}

	// Compaction starts no server and does not fail for a missing one.
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "A summary."}))
	cp := runAgent(t, env, "sessions", "compact", id, "--base-url", fake.URL, "--db", db)
	if cp.code != 0 {
		t.Fatalf("compact with no server: exit %d: %s", cp.code, cp.stderr)
	}
	if strings.Contains(cp.stderr, "tools changed") || strings.Contains(cp.stderr, "MCP server") {
		t.Errorf("compact warned about servers: %s", cp.stderr)
	}
}
