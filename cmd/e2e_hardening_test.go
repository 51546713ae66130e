package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	"github.com/agent-dev/agent/store"
	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// writeJSON writes v to a file in a temporary directory.
func writeJSON(t *testing.T, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// namedMCPConfig is testMCPConfig with the server named name.
func namedMCPConfig(t *testing.T, name string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return writeJSON(t, "mcp.json", map[string]any{"mcpServers": map[string]any{
		name: map[string]any{"command": exe, "env": map[string]string{"AGENT_TEST_MCP_SERVER": "1"}},
	}})
}

// #14 case 1 and 8: a require_approval pattern written with any name of
// the tool holds, on a direct call and through tool_call, for a deferred
// tool the model never searched for; -p without --yes denies it.
func TestApprovalMatchesEveryName(t *testing.T) {
	wire := mcptools.ToolName("bad.2", "send_email")
	if wire == "bad.2__send_email" {
		t.Fatal("the test needs a server name that is rewritten on the wire")
	}
	for _, pattern := range []string{"bad.2__send_email", "bad.2__*", "send_email", wire, "server:bad.2", "server:bad.*"} {
		for _, how := range []string{"tool_call", "direct"} {
			t.Run(pattern+"/"+how, func(t *testing.T) {
				isolate(t)
				f := chattest.NewServer(t)
				call := chattest.WrappedCall("call_1", wire, map[string]any{"to": "a@b.c", "body": "hi"})
				if how == "direct" {
					call = chattest.DirectCall("call_1", wire, map[string]any{"to": "a@b.c", "body": "hi"})
				}
				f.Script(chattest.Calls(call), chattest.Text("Done."))
				cfg := writeJSON(t, "config.json", map[string]any{"require_approval": []string{pattern}})
				res := runAgent(t, nil, "-p", "mail them", "--config", cfg, "--mcp-config", namedMCPConfig(t, "bad.2"),
					"--mcp", "bad.2", "--defer", "--provider", "ollama", "--base-url", f.URL+"/v1", "--model", "qwen3",
					"--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "json")
				if res.code != 0 {
					t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
				}
				out := decodePrint(t, res.stdout)
				if len(out.ToolCalls) != 1 || !out.ToolCalls[0].IsError {
					t.Fatalf("tool calls = %+v: the call ran without approval", out.ToolCalls)
				}
				reqs := f.Requests()
				if len(reqs) != 2 || !bytes.Contains(reqs[1].Body, []byte("it needs the user's approval and agent runs without anyone to ask")) {
					t.Fatalf("the model was not told why the call was refused: %s", reqs[len(reqs)-1].Body)
				}
				if len(out.Warnings) != 0 {
					t.Errorf("warnings = %q", out.Warnings)
				}
			})
		}
	}
}

// #14 case 1: a pattern matching no tool is a warning on stderr and in JSON.
func TestApprovalPatternMatchingNothingWarns(t *testing.T) {
	isolate(t)
	f := chattest.NewServer(t)
	f.Script(chattest.Text("Hi."))
	cfg := writeJSON(t, "config.json", map[string]any{"require_approval": []string{"bad2__*", "server:nosuch", "send_email"}})
	args := []string{"-p", "hello", "--config", cfg, "--mcp-config", namedMCPConfig(t, "bad.2"), "--mcp", "bad.2",
		"--provider", "ollama", "--base-url", f.URL + "/v1", "--model", "qwen3", "--db", filepath.Join(t.TempDir(), "a.db")}
	res := runAgent(t, nil, append(args, "--output-format", "json")...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	out := decodePrint(t, res.stdout)
	joined := strings.Join(out.Warnings, "\n")
	if len(out.Warnings) != 2 || !strings.Contains(joined, `"bad2__*" matches no tool`) || !strings.Contains(joined, `"server:nosuch" matches no tool`) {
		t.Fatalf("warnings = %q", out.Warnings)
	}
	f.Script(chattest.Text("Hi."))
	res = runAgent(t, nil, args...)
	if !strings.Contains(res.stderr, `"bad2__*" matches no tool`) {
		t.Fatalf("stderr = %q", res.stderr)
	}
}

// evil carries an OSC 52 clipboard write, a title change, a screen clear
// and an OSC 8 link.
const evil = "ok\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]0;pwned\x07\x1b[2J\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\"

func noEscapes(t *testing.T, where, s string) {
	t.Helper()
	if strings.ContainsAny(s, "\x1b\x07\u009b\u009d") {
		t.Errorf("%s carries escape sequences: %q", where, s)
	}
}

// #14 case 2: -p text output, sessions show, tools search and mcp list
// never print escape sequences from the model, tools or servers.
func TestUntrustedTextIsSanitised(t *testing.T) {
	isolate(t)
	f := chattest.NewServer(t)
	f.Script(chattest.Text(evil))
	db := filepath.Join(t.TempDir(), "a.db")
	res := runAgent(t, nil, "-p", "hi", "--provider", "ollama", "--base-url", f.URL+"/v1", "--model", "qwen3", "--db", db)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	noEscapes(t, "-p text output", res.stdout)
	if !strings.Contains(res.stdout, "oklink") {
		t.Errorf("stdout = %q", res.stdout)
	}

	// The JSON keeps the text exactly, escaped by JSON itself.
	f.Script(chattest.Text(evil))
	res = runAgent(t, nil, "-p", "hi", "--provider", "ollama", "--base-url", f.URL+"/v1", "--model", "qwen3", "--db", db, "--output-format", "json")
	noEscapes(t, "-p json output", res.stdout)
	if out := decodePrint(t, res.stdout); out.Result != evil {
		t.Errorf("json result = %q", out.Result)
	}

	res = runAgent(t, nil, "sessions", "--db", db)
	noEscapes(t, "sessions", res.stdout)
	list := runAgent(t, nil, "sessions", "--db", db, "--json")
	var sums []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(list.stdout), &sums); err != nil || len(sums) == 0 {
		t.Fatalf("sessions --json: %v %s", err, list.stdout)
	}
	show := runAgent(t, nil, "sessions", "show", sums[0].ID, "--db", db)
	if show.code != 0 || !strings.Contains(show.stdout, "oklink") {
		t.Fatalf("show: %d %q %s", show.code, show.stdout, show.stderr)
	}
	noEscapes(t, "sessions show", show.stdout)

	catalog := writeJSON(t, "tools.json", []map[string]any{{"name": "evil\x1b[2Jtool", "description": "Reads files " + evil, "server": "s\x1b]0;t\x07"}})
	search := runAgent(t, nil, "tools", "search", "--catalog", catalog, "reads files")
	if search.code != 0 || !strings.Contains(search.stdout, "Reads files ok") {
		t.Fatalf("tools search: %d %q %s", search.code, search.stdout, search.stderr)
	}
	noEscapes(t, "tools search", search.stdout)

	var b bytes.Buffer
	if err := app.WriteMCPList(&b, []app.MCPEntry{{Status: mcptools.Status{Name: "x", State: mcptools.StateFailed, Error: "exit status 1: " + evil}}}, false, 0); err != nil {
		t.Fatal(err)
	}
	noEscapes(t, "mcp list", b.String())
}

// #14 case 10: --resume mistakes are usage errors (exit 2) alike; a
// negative max_steps is refused; --resume "" is an error.
func TestResumeAndLimitMistakes(t *testing.T) {
	isolate(t)
	db := filepath.Join(t.TempDir(), "a.db")
	d, err := store.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	first := map[byte]int{}
	prefix := ""
	for i := 0; i < 200 && prefix == ""; i++ {
		s, err := d.Create(t.Context(), store.SessionMeta{Workdir: "/w", Provider: "ollama", Model: "qwen3"})
		if err != nil {
			t.Fatal(err)
		}
		first[s.ID()[0]]++
		if first[s.ID()[0]] == 2 {
			prefix = s.ID()[:1]
		}
		s.Close()
	}
	d.Close()
	env := map[string]string{}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown id", []string{"-p", "x", "--resume", "zzzzzz", "--db", db}, `no session "zzzzzz"`},
		{"ambiguous id", []string{"-p", "x", "--resume", prefix, "--db", db}, "matches several sessions"},
		{"empty id", []string{"-p", "x", "--resume", "", "--db", db}, "--resume needs a session ID"},
		{"negative max steps flag", []string{"-p", "x", "--max-steps", "-5", "--db", db}, "--max-steps -5: must be at least 1"},
		{"negative max_steps in config", []string{"-p", "x", "--config", writeJSON(t, "c.json", map[string]any{"max_steps": -5}), "--db", db}, `"max_steps" must be at least 1`},
		{"negative defer_threshold in config", []string{"-p", "x", "--config", writeJSON(t, "d.json", map[string]any{"defer_threshold": -3}), "--db", db}, `"defer_threshold" must be positive`},
		{"negative wire_budget in config", []string{"-p", "x", "--config", writeJSON(t, "w.json", map[string]any{"wire_budget": -1}), "--db", db}, `"wire_budget" must be a positive number of bytes`},
		{"unknown theme flag", []string{"-p", "x", "--theme", "neon", "--db", db}, `--theme "neon": unknown theme`},
		{"unknown theme in config", []string{"-p", "x", "--config", writeJSON(t, "t.json", map[string]any{"theme": "neon"}), "--db", db}, `unknown theme "neon"`},
		{"missing mcp config", []string{"-p", "x", "--mcp-config", "/nonexistent.json", "--db", db}, "/nonexistent.json does not exist"},
		// #32: a bad value in an environment variable names the variable.
		{"AGENT_THEME", []string{"-p", "x", "--db", db}, `AGENT_THEME="neon": unknown theme: use auto, catppuccin, dark, dracula or light`},
		{"AGENT_PROVIDER", []string{"-p", "x", "--db", db}, `AGENT_PROVIDER="bogus": unknown provider: use anthropic, azure,`},
		{"AGENT_TOKEN_STORE", []string{"mcp", "list"}, `AGENT_TOKEN_STORE="bogus": unknown token store: use auto, keychain or file`},
		{"AGENT_SEARCH", []string{"-p", "x", "--db", db}, `AGENT_SEARCH="bogus": unknown search mode: use native, client or off`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := env
			if strings.HasPrefix(tc.name, "AGENT_") {
				env = map[string]string{tc.name: map[bool]string{true: "neon", false: "bogus"}[tc.name == "AGENT_THEME"]}
			}
			res := runAgent(t, env, append(tc.args, "--provider", "ollama", "--model", "qwen3", "--base-url", "http://127.0.0.1:1/v1")...)
			if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", res.code, res.stderr, tc.want)
			}
		})
	}
}

// #14 case 7: --mcp NAME for a server that cannot start is an error (exit
// 1) in -p, saying why (exit status, stderr).
func TestPrintNamedServerThatCannotStartFails(t *testing.T) {
	isolate(t)
	f := chattest.NewServer(t)
	f.Script(chattest.Text("Hi."))
	cfg := writeJSON(t, "mcp.json", map[string]any{"mcpServers": map[string]any{
		"broken": map[string]any{"command": "sh", "args": []string{"-c", "echo 'fatal: no token' >&2; exit 3"}},
	}})
	res := runAgent(t, nil, "-p", "hi", "--mcp-config", cfg, "--mcp", "broken", "--provider", "ollama",
		"--base-url", f.URL+"/v1", "--model", "qwen3", "--db", filepath.Join(t.TempDir(), "a.db"))
	if res.code != 1 || !strings.Contains(res.stderr, "MCP server broken did not start: the server exited (exit status 3)") ||
		!strings.Contains(res.stderr, "exit status 3") || !strings.Contains(res.stderr, "fatal: no token") {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if len(f.Requests()) != 0 {
		t.Errorf("the prompt was sent without the server")
	}
}

// #14 case 10: a -p run that got no answer leaves no session behind.
func TestFailedPrintRunLeavesNoSession(t *testing.T) {
	isolate(t)
	db := filepath.Join(t.TempDir(), "a.db")
	res := runAgent(t, nil, "-p", "hello", "--provider", "ollama", "--base-url", "http://127.0.0.1:1/v1", "--model", "qwen3",
		"--db", db, "--output-format", "json")
	if res.code != 1 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if out := decodePrint(t, res.stdout); !out.IsError || out.SessionID != "" {
		t.Errorf("result = %+v", out)
	}
	list := runAgent(t, nil, "sessions", "--db", db, "--json")
	if strings.TrimSpace(list.stdout) != "[]" {
		t.Fatalf("sessions left: %s", list.stdout)
	}
}

// #14 case 7: a server named with --mcp whose tools come from the catalog
// cache (so -p does not wait for it) and that then fails to start still
// fails the run (exit 1).
func TestPrintNamedCachedServerThatFailsFails(t *testing.T) {
	isolate(t)
	cfg, gate := gatedMCPConfig(t)
	db := filepath.Join(t.TempDir(), "agent.db")
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	fake := anthropictest.NewServer(t)
	args := []string{"-p", "weather?", "--provider", "anthropic", "--base-url", fake.URL, "--mcp-config", cfg, "--mcp", "tt",
		"--db", db, "--output-format", "json"}
	gate.Open()
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "hello"}))
	if res := runAgent(t, env, args...); res.code != 0 {
		t.Fatalf("first run: exit %d: %s", res.code, res.stderr)
	}
	gate.Fail()
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "tt__get_weather", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "No weather."},
	))
	res := runAgent(t, env, args...)
	if res.code != 1 || !strings.Contains(res.stderr, "named with --mcp") || !strings.Contains(res.stderr, "exit status 3") {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if out := decodePrint(t, res.stdout); !out.IsError {
		t.Errorf("result = %+v", out)
	}
}

// A session ID no session has, and a --db path no database can be at, are
// one line saying what to do, exit codes as before: "no session "nosuch"
// (see agent sessions): not found" said the reason twice, and "open
// session database /tmp: open database /tmp: open /tmp: is a directory"
// named neither the flag nor what to give.
func TestSessionAndDBErrorsSayWhatToDo(t *testing.T) {
	isolate(t)
	db := filepath.Join(t.TempDir(), "a.db")
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "f")
	writeText(t, file, "x")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sessions", "rm", "nosuch", "--db", db}, 2, `agent: no session "nosuch": see agent sessions for the IDs` + "\n"},
		{[]string{"sessions", "show", "nosuch", "--db", db}, 2, `agent: no session "nosuch": see agent sessions for the IDs` + "\n"},
		{[]string{"sessions", "--db", dir}, 1, "agent: --db " + dir + ": is a directory: give a file for the session database (created if missing), or leave out --db for "},
		{[]string{"-p", "hi", "--db", dir, "--provider", "ollama", "--model", "qwen3", "--base-url", "http://127.0.0.1:1/v1"}, 1,
			"agent: --db " + dir + ": is a directory: give a file for the session database (created if missing), or leave out --db for "},
		{[]string{"sessions", "--db", filepath.Join(file, "a.db")}, 1, "agent: --db " + filepath.Join(file, "a.db") + ": not a directory: give a file for the session database"},
	} {
		res := runAgent(t, nil, tc.args...)
		if res.code != tc.code || !strings.HasPrefix(res.stderr, tc.want) || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
			t.Errorf("agent %q: exit %d, stderr %q; want %d and one line starting %q", tc.args, res.code, res.stderr, tc.code, tc.want)
		}
	}
}
