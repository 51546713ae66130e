package cmd

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// testMCPConfig writes an --mcp-config whose "tt" server is this test binary.
func testMCPConfig(t *testing.T) string {
	t.Helper()
	return writeTestMCPConfig(t, nil)
}

// writeTestMCPConfig writes an --mcp-config of "tt" and a server of each
// name in more, each this test binary as a server with the environment
// given (AGENT_TEST_MCP_SERVER set).
func writeTestMCPConfig(t *testing.T, more map[string]map[string]string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]any{"tt": map[string]any{"command": exe, "env": map[string]string{"AGENT_TEST_MCP_SERVER": "1"}}}
	for name, env := range more {
		env = maps.Clone(env)
		env["AGENT_TEST_MCP_SERVER"] = "1"
		servers[name] = map[string]any{"command": exe, "env": env}
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// isolate keeps a test away from the user's config and data.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	// Sign-ins go to files under HOME, never the OS keychain of the
	// machine the tests run on.
	t.Setenv("AGENT_TOKEN_STORE", "file")
	wd := t.TempDir()
	t.Chdir(wd)
	return wd
}

type runResult struct {
	code           int
	stdout, stderr string
}

func runAgent(t *testing.T, env map[string]string, args ...string) runResult {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	code := Execute(t.Context(), args, strings.NewReader(""), &out, &errb, getenv)
	return runResult{code, out.String(), errb.String()}
}

func decodePrint(t *testing.T, s string) PrintResult {
	t.Helper()
	var r PrintResult
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("decode -p json: %v\n%s", err, s)
	}
	return r
}

// The spine's "done when": a deferred tool found by Anthropic's own search,
// called, answered; the second request replays the search pair verbatim
// with a byte-identical tools array; the JSON reports search and call.
func TestPrintAnthropicNativeSearch(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "It is sunny in Berlin."},
	))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	db := filepath.Join(t.TempDir(), "agent.db")
	res := runAgent(t, env, "-p", "What's the weather in Berlin?", "--provider", "anthropic", "--base-url", fake.URL,
		"--mcp-config", testMCPConfig(t), "--mcp", "tt", "--defer", "--db", db, "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	out := decodePrint(t, res.stdout)
	if out.Result != "It is sunny in Berlin." || out.IsError || out.SessionID == "" || out.NumRequests != 2 {
		t.Errorf("result = %+v", out)
	}
	if len(out.Searches) != 1 || out.Searches[0].Where != "provider" || len(out.Searches[0].Tools) == 0 || out.Searches[0].Tools[0] != "tt__get_weather" {
		t.Errorf("searches = %+v", out.Searches)
	}
	if len(out.ToolCalls) != 1 || out.ToolCalls[0].Name != "tt__get_weather" || out.ToolCalls[0].IsError {
		t.Errorf("tool calls = %+v", out.ToolCalls)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d", len(reqs))
	}
	if !bytes.Equal(reqs[0].Tools(), reqs[1].Tools()) {
		t.Errorf("tools array changed between requests:\n%s\n%s", reqs[0].Tools(), reqs[1].Tools())
	}
	if !bytes.Contains(reqs[0].Tools(), []byte(`"defer_loading":true`)) || !bytes.Contains(reqs[0].Tools(), []byte("tool_search_tool_bm25")) {
		t.Errorf("first request does not defer: %s", reqs[0].Tools())
	}
	// The assistant turn with the search pair is replayed verbatim.
	second := reqs[1].Messages()
	if len(second) < 2 || !bytes.Contains(second[1], []byte(`"server_tool_use"`)) || !bytes.Contains(second[1], []byte(`"tool_search_tool_result"`)) {
		t.Errorf("second request does not replay the search pair: %s", second)
	}

	// Resume by ID prefix: the tools found stay found, no new search.
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Call: "tt__get_weather", Input: map[string]any{"city": "Paris"}}, anthropictest.Turn{Text: "Paris too."}))
	res2 := runAgent(t, env, "-p", "And Paris?", "--base-url", fake.URL, "--mcp-config", testMCPConfig(t),
		"--resume", out.SessionID[:5], "--db", db, "--output-format", "json")
	if res2.code != 0 {
		t.Fatalf("resume exit %d: %s", res2.code, res2.stderr)
	}
	out2 := decodePrint(t, res2.stdout)
	if out2.SessionID != out.SessionID || len(out2.Searches) != 0 || out2.Result != "Paris too." {
		t.Errorf("resumed = %+v", out2)
	}
	all := fake.Requests()
	if !bytes.Equal(all[2].Tools(), reqs[0].Tools()) {
		t.Errorf("resumed tools array differs")
	}
	if out2.ToolsHash != out.ToolsHash {
		t.Errorf("tools hash %s != %s", out2.ToolsHash, out.ToolsHash)
	}
	if !bytes.Equal(all[2].Messages()[1], second[1]) {
		t.Errorf("resumed replay differs:\n%s\n%s", all[2].Messages()[1], second[1])
	}
}

func TestPrintUsageErrors(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		args []string
		env  map[string]string
		code int
		want string
	}{
		{[]string{"--bogus"}, nil, 2, "unknown flag: --bogus"},
		{[]string{"-p", "hi", "--provider", "nope"}, nil, 2, `--provider "nope": unknown provider: use anthropic, azure,`},
		{[]string{"models", "gpt-5.4", "--provider", "nope"}, nil, 2, `--provider "nope": unknown provider`},
		// A bad value names the flag, the value and the accepted values.
		{[]string{"--defer", "maybe", "-p", "hi"}, nil, 2, `--defer "maybe": unknown defer setting: use true, false or auto`},
		{[]string{"-p", "hi", "--defer=maybe"}, nil, 2, `--defer "maybe": unknown defer setting: use true, false or auto`},
		{[]string{"-p", "hi", "--output-format", "yaml"}, nil, 2, `--output-format "yaml": unknown output format: use text, json or stream-json`},
		{[]string{"-p", "hi", "--theme", "neon"}, nil, 2, `--theme "neon": unknown theme: use auto, catppuccin, dark, dracula or light`},
		{[]string{"-p", "hi", "--permission-mode", "yolo"}, nil, 2, `--permission-mode "yolo": unknown permission mode: use default, accept-reads, plan or bypass`},
		{[]string{"-p", "hi", "--effort", "extreme"}, nil, 2, `--effort "extreme": unknown effort: use none, minimal, low, medium, high or max`},
		{[]string{"-p", "hi", "--search-algo", "fuzzy"}, nil, 2, `--search-algo "fuzzy": unknown search algorithm: use bm25 or regex`},
		{[]string{"-p", "hi", "--provider", "anthropic"}, map[string]string{"ANTHROPIC_API_KEY": ""}, 2, "ANTHROPIC_API_KEY is not set"},
		{[]string{"-p", "hi", "--provider", "openai-chat"}, map[string]string{"OPENAI_API_KEY": ""}, 2, "OPENAI_API_KEY is not set: export it"},
		{[]string{"-p", "hi", "--provider", "gemini-openai"}, map[string]string{"GEMINI_API_KEY": ""}, 2, "GEMINI_API_KEY is not set: export it"},
		{[]string{"-p", "hi", "--provider", "groq"}, map[string]string{"GROQ_API_KEY": ""}, 2, "GROQ_API_KEY is not set: export it"},
		{[]string{"-p", "hi", "--config", "/nonexistent/agent.json"}, nil, 2, "--config /nonexistent/agent.json: no such file or directory: give a config file (a JSON object of settings: see docs/config.md), or leave out --config for "},
		{[]string{"-p", "hi", "--config", "/"}, nil, 2, "--config /: is a directory: give a config file"},
		{[]string{"-p", "hi", "--search", "sometimes"}, nil, 2, `--search "sometimes": unknown search mode: use native, client or off`},
		{[]string{"-p", ""}, nil, 2, "empty prompt"},
		{[]string{"hello"}, nil, 2, `to run a prompt use agent -p "hello"`},
		{[]string{"-p", "x", "--provider-tool", "teleport", "--provider", "anthropic"}, map[string]string{"ANTHROPIC_API_KEY": "k"}, 2, "available aliases are"},
		// The TUI on a non-terminal stdout (here a buffer).
		{[]string{"--demo"}, nil, 2, "use -p PROMPT"},
	} {
		res := runAgent(t, tc.env, tc.args...)
		if res.code != tc.code || !strings.Contains(res.stderr, tc.want) || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d stderr %q, want exit %d containing %q on one line", tc.args, res.code, res.stderr, tc.code, tc.want)
		}
	}
}

// A model that rejects native search: the provider's error is shown with
// the hint to search client-side.
func TestPrintNativeSearchRejectedSuggestsClient(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.NoNativeSearch = map[string]bool{"claude-sonnet-4-5": true}
	res := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}, "-p", "hi", "--base-url", fake.URL,
		"--mcp-config", testMCPConfig(t), "--mcp", "tt", "--defer", "--db", filepath.Join(t.TempDir(), "a.db"))
	if res.code != 1 || !strings.Contains(res.stderr, "invalid_request_error") || !strings.Contains(res.stderr, "try --search client") {
		t.Errorf("exit %d stderr %q", res.code, res.stderr)
	}
}

// Text mode prints each assistant message as its own paragraph.
func TestPrintTextSeparatesMessages(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Text: "Let me look that up.", Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "It is sunny in Berlin."},
	))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	res := runAgent(t, env, "-p", "Weather in Berlin?", "--base-url", fake.URL, "--mcp-config", testMCPConfig(t),
		"--mcp", "tt", "--defer", "--db", filepath.Join(t.TempDir(), "agent.db"))
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.code, res.stderr)
	}
	if want := "Let me look that up.\n\nIt is sunny in Berlin.\n"; res.stdout != want {
		t.Errorf("stdout = %q, want %q", res.stdout, want)
	}
}

// Nothing listening at the provider's address: one line with what to do.
func TestPrintConnectionRefusedHint(t *testing.T) {
	isolate(t)
	res := runAgent(t, nil, "-p", "hi", "--provider", "ollama", "--base-url", "http://127.0.0.1:1/v1", "--db", filepath.Join(t.TempDir(), "agent.db"))
	if res.code != 1 || !strings.Contains(res.stderr, "point --base-url at it") || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
		t.Errorf("exit %d stderr %q, want exit 1 and the --base-url hint on one line", res.code, res.stderr)
	}
}

// The README lists "warnings" and "usage.server_tool_use" in the JSON: they
// are there even when empty, and a provider search's stream-json
// search_finished event carries the query of the call it answers.
func TestPrintJSONFieldsAlwaysPresent(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Hi."}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	res := runAgent(t, env, "-p", "hi", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(res.stdout), &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["warnings"]) != "[]" {
		t.Errorf("warnings = %s, want []", raw["warnings"])
	}
	var usage map[string]json.RawMessage
	_ = json.Unmarshal(raw["usage"], &usage)
	if string(usage["server_tool_use"]) != "{}" {
		t.Errorf("usage.server_tool_use = %s, want {}", usage["server_tool_use"])
	}

	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "Sunny."},
	))
	res = runAgent(t, env, "-p", "weather?", "--base-url", fake.URL, "--mcp-config", testMCPConfig(t), "--mcp", "tt", "--defer",
		"--db", filepath.Join(t.TempDir(), "b.db"), "--output-format", "stream-json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	found := false
	for _, line := range strings.Split(res.stdout, "\n") {
		var ev struct {
			Type   string `json:"type"`
			Search *struct {
				Query string `json:"query"`
			} `json:"search"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "search_finished" {
			continue
		}
		found = true
		if ev.Search == nil || ev.Search.Query != "weather forecast" {
			t.Errorf("search_finished without its query: %s", line)
		}
	}
	if !found {
		t.Errorf("no search_finished event:\n%s", res.stdout)
	}
}
