package cmd

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/internal/testgate"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// gatedMCPConfig is testMCPConfig's server, started only once the returned
// gate opens.
func gatedMCPConfig(t *testing.T) (cfgPath string, gate *testgate.Gate) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	gate = testgate.New(t)
	cfg := map[string]any{"mcpServers": map[string]any{
		"tt": map[string]any{"command": exe, "env": map[string]string{"AGENT_TEST_MCP_SERVER": "1", "AGENT_TEST_MCP_GATE": gate.Addr()}},
	}}
	b, _ := json.Marshal(cfg)
	cfgPath = filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return cfgPath, gate
}

// With the catalog cached, a -p run sends its first request while its MCP
// server is still starting, and the tool call waits for that server only.
func TestPrintDoesNotWaitForCachedServer(t *testing.T) {
	isolate(t)
	cfg, gate := gatedMCPConfig(t)
	db := filepath.Join(t.TempDir(), "agent.db")
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	fake := anthropictest.NewServer(t)
	args := func(prompt string) []string {
		return []string{"-p", prompt, "--provider", "anthropic", "--base-url", fake.URL, "--mcp-config", cfg,
			"--db", db, "--output-format", "json"}
	}

	// First run: nothing cached, the run waits for the server (open gate).
	gate.Open()
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "hello"}))
	if res := runAgent(t, env, args("hi")...); res.code != 0 {
		t.Fatalf("first run: exit %d: %s", res.code, res.stderr)
	}
	first := fake.Requests()[0].Tools()

	// Second run: the server will not start until the gate opens again.
	gate.Shut()
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "tt__get_weather", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "Sunny."},
	))
	done := make(chan runResult, 1)
	go func() { done <- runAgent(t, env, args("weather in Berlin?")...) }()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for len(fake.Requests()) < 2 {
		select {
		case res := <-done:
			t.Fatalf("the run ended before its first request: %+v", res)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no first request while the MCP server is starting: the run waits for it")
		}
		<-tick.C
	}
	if got := fake.Requests()[1].Tools(); !bytes.Equal(got, first) {
		t.Fatalf("the cached tools array differs from the server's:\n%s\n%s", got, first)
	}
	if gate.IsOpen() {
		t.Fatal("gate open too early")
	}
	gate.Open()
	var res runResult
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the run never ended")
	}
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	out := decodePrint(t, res.stdout)
	if len(out.ToolCalls) != 1 || out.ToolCalls[0].IsError {
		t.Fatalf("tool calls: %+v", out.ToolCalls)
	}
	if reqs := fake.Requests(); len(reqs) != 3 || !bytes.Contains(reqs[2].Body, []byte("Weather in Berlin")) {
		t.Fatalf("the tool result did not reach the model (%d requests)", len(reqs))
	}

	// --no-cache: the run waits for the server again (the gate is open,
	// so it just works).
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "ok"}))
	if res := runAgent(t, env, append(args("again"), "--no-cache")...); res.code != 0 {
		t.Fatalf("--no-cache: exit %d: %s", res.code, res.stderr)
	}
}

// A server whose list changed since it was cached: the first turn sends
// the cached list, the change applies at the next turn boundary with a
// warning about the prompt cache. The server is "eager", so it starts as
// the first request goes out (a lazy one, the default, starts at the
// first call of one of its tools: tools/mcp TestLazyStartRefreshesTheCatalog).
func TestChangedServerAppliesAtNextTurn(t *testing.T) {
	isolate(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(t.TempDir(), "extra")
	cfg := writeMCPServers(t, map[string]any{
		"tt": map[string]any{"command": exe, "start": "eager", "env": map[string]string{"AGENT_TEST_MCP_SERVER": "1", "AGENT_TEST_MCP_EXTRA": extra}},
	})
	db := filepath.Join(t.TempDir(), "agent.db")
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "cached"}))
	args := []string{"--provider", "anthropic", "--base-url", fake.URL, "--mcp-config", cfg, "--db", db}
	if res := runAgent(t, env, append([]string{"-p", "fill the cache"}, args...)...); res.code != 0 {
		t.Fatalf("first run: exit %d: %s", res.code, res.stderr)
	}
	// The server now has one more tool.
	if err := os.WriteFile(extra, []byte("get_time"), 0o600); err != nil {
		t.Fatal(err)
	}
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "one"}, anthropictest.Turn{Text: "two"}))
	a := openTestApp(t, env, args...)
	drain := func(text string) {
		for ev := range a.Send(t.Context(), text) {
			if ev.Type == agent.EventError {
				t.Fatalf("turn %q: %v", text, ev.Err)
			}
		}
	}
	drain("first turn")
	if got := fake.Requests(); bytes.Contains(got[len(got)-1].Tools(), []byte("tt__get_time")) {
		t.Fatal("the first turn did not send the cached list")
	}
	// The server is up once the first request went out; its new list is
	// pending until the turn boundary (Send syncs too; polled here so the
	// test does not depend on when the server finished listing).
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for len(a.SyncTools()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the changed list never arrived")
		}
		<-tick.C
	}
	drain("second turn")
	if got := fake.Requests(); !bytes.Contains(got[len(got)-1].Tools(), []byte("tt__get_time")) {
		t.Fatal("the second turn did not send the server's new list")
	}
	var warned bool
	for _, n := range a.Notices() {
		warned = warned || (strings.Contains(n, "cached list") && strings.Contains(n, "cache"))
	}
	if !warned {
		t.Fatalf("no warning about the changed list: %q", a.Notices())
	}
}

// openTestApp wires the app as print mode does, without running a turn.
func openTestApp(t *testing.T, env map[string]string, args ...string) *app.App {
	t.Helper()
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	g := &Globals{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: getenv}
	root := NewRootCmd(g)
	var a *app.App
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		var err error
		a, err = app.Open(cmd.Context(), g.Settings, app.Options{Getenv: g.Getenv})
		if err != nil {
			return err
		}
		t.Cleanup(a.Close)
		return nil
	}
	root.SetArgs(args)
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	if err := root.ExecuteContext(t.Context()); err != nil {
		t.Fatal(err)
	}
	return a
}

// With every server's list cached, a -p turn that calls one tool starts
// that tool's server only (lazy, the default). An "eager" server starts as
// the first request goes out: TestChangedServerAppliesAtNextTurn.
func TestPrintStartsOnlyTheCalledServer(t *testing.T) {
	isolate(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marks := t.TempDir()
	servers := map[string]any{}
	for _, name := range []string{"aa", "bb", "cc"} {
		servers[name] = map[string]any{"command": exe, "env": map[string]string{"AGENT_TEST_MCP_SERVER": "1",
			"AGENT_TEST_MCP_PIDFILE": filepath.Join(marks, name)}}
	}
	cfg := writeMCPServers(t, servers)
	db := filepath.Join(t.TempDir(), "agent.db")
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	fake := anthropictest.NewServer(t)
	args := func(prompt string) []string {
		return []string{"-p", prompt, "--provider", "anthropic", "--base-url", fake.URL, "--mcp-config", cfg,
			"--db", db, "--output-format", "json", "--defer"}
	}
	started := func() []string {
		ents, err := os.ReadDir(marks)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
			_ = os.Remove(filepath.Join(marks, e.Name()))
		}
		return names
	}
	// Nothing cached: every server starts, to be listed.
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "hello"}))
	if res := runAgent(t, env, args("hi")...); res.code != 0 {
		t.Fatalf("first run: exit %d: %s", res.code, res.stderr)
	}
	if got := started(); strings.Join(got, ",") != "aa,bb,cc" {
		t.Fatalf("first run started %v, want every server", got)
	}
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Search: "weather", Call: "bb__get_weather", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "Sunny."},
	))
	res := runAgent(t, env, args("weather in Berlin?")...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if out := decodePrint(t, res.stdout); len(out.ToolCalls) != 1 || out.ToolCalls[0].IsError {
		t.Fatalf("tool calls: %+v", out.ToolCalls)
	}
	if got := started(); strings.Join(got, ",") != "bb" {
		t.Fatalf("a turn calling one tool of bb started %v, want bb only", got)
	}
}

// writeMCPServers writes servers as an --mcp-config file and returns its path.
func writeMCPServers(t *testing.T, servers map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}
