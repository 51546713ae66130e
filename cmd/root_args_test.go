package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/app"
)

// "--defer auto", as the README writes it, is the flag's value, not a word of
// the prompt; a bare "--defer" still means true.
func TestJoinDeferValue(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"--mcp", "github", "--defer", "auto"}, []string{"--mcp", "github", "--defer=auto"}},
		{[]string{"--defer", "false", "-p", "hi"}, []string{"--defer=false", "-p", "hi"}},
		{[]string{"-p", "--defer", "List my pull requests"}, []string{"-p", "--defer", "List my pull requests"}},
		{[]string{"--defer"}, []string{"--defer"}},
		// A misspelt value is the flag's (and refused), not a word of the prompt.
		{[]string{"--defer", "maybe", "-p", "hi"}, []string{"--defer=maybe", "-p", "hi"}},
		{[]string{"--defer", "tools"}, []string{"--defer", "tools"}},
		{[]string{"--defer", "-p", "hi"}, []string{"--defer", "-p", "hi"}},
		{[]string{"-p", "--", "--defer", "auto"}, []string{"-p", "--", "--defer", "auto"}},
		// #27: --resume without an ID picks a session; with one, as before.
		{[]string{"--resume"}, []string{"--resume=" + app.PickSession}},
		{[]string{"--resume", "--theme", "dark"}, []string{"--resume=" + app.PickSession, "--theme", "dark"}},
		{[]string{"--resume", "abc123"}, []string{"--resume", "abc123"}},
	} {
		if got := joinDeferValue(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("joinDeferValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Through the command line: the value reaches the settings and the
	// prompt keeps only its own words.
	g := &Globals{Getenv: func(string) string { return "" }}
	root := NewRootCmd(g)
	if err := root.ParseFlags(joinDeferValue([]string{"-p", "hi", "--defer", "auto"})); err != nil {
		t.Fatal(err)
	}
	if g.Defer != "auto" || !slices.Equal(root.Flags().Args(), []string{"hi"}) {
		t.Errorf("defer %q, args %q", g.Defer, root.Flags().Args())
	}
}

// agent tools --json without a key: "provider" is the provider's name, as
// with one; why it cannot run is a field of its own.
func TestToolsJSONProviderNotConfigured(t *testing.T) {
	isolate(t)
	res := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": ""}, "tools", "--json", "--provider", "anthropic")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var rep struct {
		Provider      string `json:"provider"`
		ProviderError string `json:"provider_error"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Provider != "anthropic" || !strings.Contains(rep.ProviderError, "ANTHROPIC_API_KEY") {
		t.Errorf("provider %q, provider_error %q", rep.Provider, rep.ProviderError)
	}
	text := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": ""}, "tools", "--provider", "anthropic")
	if !strings.Contains(text.stdout, "anthropic (not configured: ANTHROPIC_API_KEY") {
		t.Errorf("text report: %q", text.stdout)
	}
}

// -p JSON names the provider as --provider did, for a Chat Completions
// preset too (its adapter calls itself "openai-chat").
func TestPrintJSONProviderIsTheFlag(t *testing.T) {
	isolate(t)
	res := runAgent(t, nil, "-p", "hi", "--provider", "ollama", "--base-url", "http://127.0.0.1:1/v1", "--model", "qwen3",
		"--output-format", "json", "--db", filepath.Join(t.TempDir(), "a.db"))
	var out struct {
		Provider string `json:"provider"`
		IsError  bool   `json:"is_error"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("exit %d stdout %q: %v", res.code, res.stdout, err)
	}
	if res.code != 1 || !out.IsError || out.Provider != "ollama" {
		t.Errorf("exit %d, provider %q, is_error %v", res.code, out.Provider, out.IsError)
	}
}

// In the demo too, a require_approval pattern that matches none of its
// tools is a warning (it was checked only for MCP servers).
func TestDemoWarnsOfUnmatchedApproval(t *testing.T) {
	wd := isolate(t)
	cfg := filepath.Join(wd, "config.json")
	if err := os.WriteFile(cfg, []byte(`{"require_approval": ["finance_*", "nomatch_*"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	res := runAgent(t, nil, "--demo", "-p", "Convert 10 EUR to USD", "--config", cfg, "--output-format", "json",
		"--db", filepath.Join(t.TempDir(), "a.db"))
	var out struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("exit %d stdout %q: %v", res.code, res.stdout, err)
	}
	if len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], `"nomatch_*" matches no tool`) {
		t.Errorf("warnings = %q", out.Warnings)
	}
}

// The demo runs on its bundled catalog: a server named for it with --mcp
// or --mcp-config (even a file that does not parse) is said to be unused,
// where it was dropped without a word; without them nothing is said.
func TestDemoSaysServersAreNotUsed(t *testing.T) {
	wd := isolate(t)
	broken := filepath.Join(wd, "mcp.json")
	if err := os.WriteFile(broken, []byte(`{"mcpServers": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	const said = "--demo runs on its bundled catalog: --mcp and --mcp-config are not used"
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--mcp-config", broken}, true},
		{[]string{"--mcp", "github"}, true},
		{nil, false},
	} {
		args := append([]string{"--demo", "-p", "Convert 10 EUR to USD", "--output-format", "json", "--db", filepath.Join(t.TempDir(), "a.db")}, tc.args...)
		res := runAgent(t, nil, args...)
		var out struct {
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || res.code != 0 {
			t.Fatalf("%v: exit %d stdout %q: %v", tc.args, res.code, res.stdout, err)
		}
		if got := slices.ContainsFunc(out.Warnings, func(w string) bool { return strings.Contains(w, said) }); got != tc.want || strings.Contains(res.stderr, said) != tc.want {
			t.Errorf("%v: warnings %q, stderr %q; want the demo's note: %v", tc.args, out.Warnings, res.stderr, tc.want)
		}
	}
}

// #27: -p cannot open a picker: --resume without an ID is a usage error.
func TestPrintResumeWithoutID(t *testing.T) {
	isolate(t)
	res := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": "k"}, "-p", "hi", "--resume")
	if res.code != 2 || !strings.Contains(res.stderr, "-p cannot pick a session: name one with --resume ID") {
		t.Errorf("exit %d: %s", res.code, res.stderr)
	}
}

// #27 (first hour): a mistyped flag or subcommand is a usage error (exit
// 2) on one line naming what was meant; a command that takes no
// arguments says so; `agent mcp` alone still shows its help.
func TestTyposSayWhatWasMeant(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--modle", "x"}, "unknown flag: --modle: did you mean --model?"},
		{[]string{"-p", "hi", "--outptu-format", "json"}, "did you mean --output-format?"},
		{[]string{"sesions"}, `unknown command "sesions": did you mean agent sessions? (to run a prompt use agent -p "sesions")`},
		{[]string{"mcp", "lgin", "remote"}, `unknown command "lgin" for "agent mcp": did you mean agent mcp login?`},
		{[]string{"tools", "serch", "weather"}, "did you mean agent tools search?"},
		{[]string{"sessions", "lst"}, `unknown command "lst" for "agent sessions" (see agent sessions --help)`},
		{[]string{"agents", "x"}, `agent agents takes no arguments (got "x")`},
		{[]string{"--frobnicate"}, "unknown flag: --frobnicate (see agent --help)"},
		// A typed flag's bad value in words, not strconv's.
		{[]string{"-p", "hi", "--max-steps", "abc"}, `--max-steps "abc": not a whole number: use one such as 10 (see agent --help)`},
		{[]string{"sessions", "--limit", "x"}, `--limit "x": not a whole number: use one such as 50 (see agent sessions --help)`},
		{[]string{"-p", "hi", "--yes=maybe"}, `--yes "maybe": use true or false (--yes alone is true)`},
		{[]string{"mcp", "list", "--timeout", "5"}, `--timeout "5": not a duration: use a number with a unit, such as 30s or 2m`},
		// A wrong number of arguments says what the command takes (cobra's
		// own "accepts 1 arg(s), received 0" exited 1).
		{[]string{"tools", "learn", "export"}, "agent tools learn export takes a FILE (got 0 arguments)"},
		{[]string{"tools", "learn", "import", "a", "b"}, "agent tools learn import takes a FILE (got 2 arguments)"},
		{[]string{"mcp", "login"}, "agent mcp login takes a server NAME (see agent mcp list) (got 0 arguments)"},
		{[]string{"mcp", "logout", "a", "b"}, "agent mcp logout takes a server NAME (see agent mcp list) (got 2 arguments)"},
		{[]string{"tools", "forget", "a", "b"}, "agent tools forget takes at most one TOOL (got 2 arguments)"},
		{[]string{"trust", "a", "b"}, "agent trust takes at most one DIR (got 2 arguments)"},
	} {
		res := runAgent(t, map[string]string{}, tc.args...)
		if res.code != 2 || !strings.Contains(res.stderr, tc.want) || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
			t.Errorf("agent %s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(tc.args, " "), res.code, res.stderr, tc.want)
		}
	}
	if res := runAgent(t, map[string]string{}, "mcp"); res.code != 0 || !strings.Contains(res.stdout, "agent mcp [command]") {
		t.Errorf("agent mcp: exit %d, stdout %q", res.code, res.stdout)
	}
}
