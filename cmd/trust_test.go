package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// #26: a cloned repository's .mcp.json starts nothing until the directory
// is trusted: not -p (which warns once, naming agent trust), not agent
// mcp list. After agent trust it runs; a change to the file asks again.
func TestProjectServersNeedTrust(t *testing.T) {
	wd := isolate(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	started := filepath.Join(t.TempDir(), "started")
	project := writeJSON(t, "p.json", map[string]any{"mcpServers": map[string]any{
		"proj": map[string]any{"command": exe, "env": map[string]string{"AGENT_TEST_MCP_SERVER": "1", "AGENT_TEST_MCP_PIDFILE": started}},
	}})
	b, _ := os.ReadFile(project)
	if err := os.WriteFile(filepath.Join(wd, ".mcp.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	fake := anthropictest.NewServer(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	db := filepath.Join(t.TempDir(), "a.db")
	run := func(extra ...string) PrintResult {
		t.Helper()
		fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Hi."}))
		res := runAgent(t, env, append([]string{"-p", "hello", "--base-url", fake.URL, "--db", db, "--output-format", "json"}, extra...)...)
		if res.code != 0 {
			t.Fatalf("exit %d: %s", res.code, res.stderr)
		}
		return decodePrint(t, res.stdout)
	}
	out := run()
	if _, err := os.Stat(started); err == nil {
		t.Fatal("-p started an untrusted project's server")
	}
	if len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "agent trust") || !strings.Contains(out.Warnings[0], ".mcp.json") {
		t.Fatalf("warnings = %q", out.Warnings)
	}
	if ls := runAgent(t, env, "mcp", "list"); ls.code != 0 || strings.Contains(ls.stdout, "proj") {
		t.Fatalf("mcp list: exit %d\n%s%s", ls.code, ls.stdout, ls.stderr)
	}
	if _, err := os.Stat(started); err == nil {
		t.Fatal("agent mcp list started an untrusted project's server")
	}

	if tr := runAgent(t, nil, "trust"); tr.code != 0 {
		t.Fatalf("agent trust: exit %d: %s", tr.code, tr.stderr)
	}
	out = run()
	if _, err := os.Stat(started); err != nil || len(out.Warnings) != 0 {
		t.Fatalf("trusted: the project's server did not start (%v); warnings %q", err, out.Warnings)
	}
	os.Remove(started)

	// The repository changes its .mcp.json: asked again.
	if err := os.WriteFile(filepath.Join(wd, ".mcp.json"), append(b, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	out = run()
	if _, err := os.Stat(started); err == nil || len(out.Warnings) != 1 {
		t.Fatalf("changed files: server started %v, warnings %q", err == nil, out.Warnings)
	}
	if tr := runAgent(t, nil, "trust", "--revoke"); tr.code != 0 || !strings.Contains(tr.stdout, "no longer trusted") {
		t.Fatalf("agent trust --revoke: exit %d: %s%s", tr.code, tr.stdout, tr.stderr)
	}
}

// agent trust and --revoke name the directory as a path, also when it is
// the working directory ("." was not trusted).
func TestTrustNamesTheDirectory(t *testing.T) {
	wd := isolate(t)
	if err := os.WriteFile(filepath.Join(wd, "AGENTS.md"), []byte("Be brief.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trust", "--revoke"}, wd + " was not trusted."},
		{[]string{"trust"}, "Trusted " + wd + " with its project files"},
		{[]string{"trust", "--revoke", "."}, wd + " is no longer trusted"},
	} {
		res := runAgent(t, map[string]string{}, tc.args...)
		if res.code != 0 || !strings.Contains(res.stdout, tc.want) {
			t.Errorf("agent %s: exit %d, stdout %q, stderr %q; want %q", strings.Join(tc.args, " "), res.code, res.stdout, res.stderr, tc.want)
		}
	}
}

// agent trust of a directory that does not exist, or of a file, says so:
// it said the path "has no project files ... there is nothing to trust".
func TestTrustOfNoDirectory(t *testing.T) {
	wd := isolate(t)
	file := filepath.Join(wd, "AGENTS.md")
	if err := os.WriteFile(file, []byte("Be brief.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(wd, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, want string }{
		{filepath.Join(wd, "nope"), filepath.Join(wd, "nope") + " does not exist: name the directory to trust"},
		{file, file + " is not a directory"},
		// Read errors other than "no such file" are said as they are: it
		// said "does not exist" for each.
		{filepath.Join(file, "sub"), filepath.Join(file, "sub") + " cannot be read: not a directory: name a directory you can read"},
		{loop, loop + " cannot be read: too many levels of symbolic links: name a directory you can read"},
	} {
		res := runAgent(t, map[string]string{}, "trust", tc.dir)
		if res.code != 2 || !strings.Contains(res.stderr, tc.want) || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
			t.Errorf("agent trust %s: exit %d, stderr %q; want exit 2 and one line with %q", tc.dir, res.code, res.stderr, tc.want)
		}
	}
}

// agent trust of a directory inside one the user may not enter says
// "permission denied", not "does not exist". Root enters any directory, so
// this runs only as another user.
func TestTrustOfUnreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any directory: run the tests as another user to check permission denied")
	}
	wd := isolate(t)
	locked := filepath.Join(wd, "locked")
	dir := filepath.Join(locked, "project")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(locked, 0o700) })
	res := runAgent(t, map[string]string{}, "trust", dir)
	want := dir + " cannot be read: permission denied: name a directory you can read"
	if res.code != 2 || !strings.Contains(res.stderr, want) || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
		t.Errorf("agent trust %s: exit %d, stderr %q; want exit 2 and one line with %q", dir, res.code, res.stderr, want)
	}
}

// agent trust lists the project's command files that do not parse, as
// the TUI's trust question does: it listed only the files it trusted, so
// a broken command was trusted unseen and then warned at every start.
func TestTrustListsBrokenCommands(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string // under .agent/commands
		want  []string
	}{
		{"a bad field", map[string]string{"review.md": "---\ncolour: red\n---\nReview.\n", "ok.md": "Fine.\n"},
			[]string{"Its command /review is not offered: " + filepath.Join(".agent", "commands", "review.md") + " does not parse: line 2: field colour: unknown field", "fix the file"}},
		{"all good", map[string]string{"ok.md": "Fine.\n"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wd := isolate(t)
			for name, body := range tt.files {
				writeText(t, filepath.Join(wd, ".agent", "commands", name), body)
			}
			tr := runAgent(t, nil, "trust")
			if tr.code != 0 {
				t.Fatalf("agent trust: exit %d: %s", tr.code, tr.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(tr.stdout, w) {
					t.Errorf("agent trust says\n%s\nwant %q", tr.stdout, w)
				}
			}
			if tt.want == nil && strings.Contains(tr.stdout, "not offered") {
				t.Errorf("agent trust says a good command is broken:\n%s", tr.stdout)
			}
		})
	}
}
