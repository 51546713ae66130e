package cmd

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// signInEnv is the environment of a tmux run that signs in: the isolated
// directories, the test binary as $BROWSER (it follows the sign-in URL),
// sign-ins in files, the fake provider's key.
func signInEnv(t *testing.T) map[string]string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"BROWSER": exe, "AGENT_TEST_BROWSER": "1", "AGENT_TOKEN_STORE": "file", "ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"} {
		env[k] = os.Getenv(k)
	}
	return env
}

// #32: no token is found in the database, the logs or any output. After
// `agent mcp login` in a real terminal, a TUI session calls the server's
// tool twice, the second time after the access token expired (refreshed
// on the 401), with the servers' log level at debug. Then every file
// under HOME but the sign-in store itself (the session database with its
// WAL and shared memory, the log file) and both panes' scrollback are
// searched for every access and refresh token issued.
func TestNoTokenAfterLoginAndCallsInTmux(t *testing.T) {
	isolate(t)
	as, cfg := protectedMCP(t)
	home := os.Getenv("HOME")
	env := signInEnv(t)
	login := startTmux(t, env, "mcp", "login", "remote", "--mcp-config", cfg)
	login.waitFor("Signed in to remote.")

	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "remote__whoami", Input: map[string]any{}},
		anthropictest.Turn{Text: "First answer."},
		anthropictest.Turn{Call: "remote__whoami", Input: map[string]any{}},
		anthropictest.Turn{Text: "Second answer."}))
	conf := writeJSON(t, "config.json", map[string]any{"mcp_log_level": "debug"})
	env["BROWSER"] = "false" // the kept sign-in is enough now
	ts := startTmux(t, env, "--config", conf, "--mcp-config", cfg, "--mcp", "remote", "--provider", "anthropic", "--base-url", fake.URL)
	ts.waitFor("/help")
	ts.send("who am I?", "Enter")
	ts.waitFor("First answer.")
	signedIn := len(as.Issued())
	as.ExpireAccessTokens()
	ts.send("and now?", "Enter")
	ts.waitFor("Second answer.")
	ts.quit()
	if len(as.Issued()) <= signedIn {
		t.Fatalf("no token was refreshed after the access token expired: %q", as.Log())
	}
	reqs := fake.Requests()
	if len(reqs) != 4 || !bytes.Contains(reqs[3].Body, []byte("signed in")) {
		t.Fatalf("the call after the refresh did not reach the server (%d requests)", len(reqs))
	}

	store := filepath.Join(os.Getenv("XDG_DATA_HOME"), "agent", "oauth")
	searched := map[string]string{"the login pane": login.history(), "the TUI pane": ts.history()}
	err := filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case path == store:
			return filepath.SkipDir
		case d.Type().IsRegular():
			b, err := os.ReadFile(path)
			searched[path] = string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range searched {
		names = append(names, filepath.Base(name))
	}
	for _, want := range []string{"agent.db", "agent.log"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Fatalf("%s is not among the files searched: %q", want, names)
		}
	}
	for _, tok := range as.Issued() {
		for name, text := range searched {
			if strings.Contains(text, tok) {
				t.Errorf("token %s… in %s", tok[:5], name)
			}
		}
	}
}

// #32: /mcp login in the TUI. A server that needs a sign-in is shown
// failed with a line naming /mcp login (not the shell's agent mcp login,
// which meant leaving the TUI); /mcp login signs in through
// $BROWSER and reconnects it, and its tool then answers. The run's own
// sign-in was read at start: the reconnect used to find no token still,
// and the tool went on failing with "needs a sign-in".
func TestMCPLoginInTUIInTmux(t *testing.T) {
	isolate(t)
	_, cfg := protectedMCP(t)
	env := signInEnv(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "remote__whoami", Input: map[string]any{}},
		anthropictest.Turn{Text: "The server answered."}))
	ts := startTmux(t, env, "--mcp-config", cfg, "--mcp", "remote", "--provider", "anthropic", "--base-url", fake.URL)
	ts.waitFor("MCP server remote did not start: it needs a sign-in", "run `/mcp login remote`")
	ts.send("/mcp login remote", "Enter")
	ts.waitFor("MCP server remote: running, 1 tool")
	ts.send("who am I?", "Enter")
	ts.waitFor("The server answered.")
	reqs := fake.Requests()
	if len(reqs) != 2 || !bytes.Contains(reqs[1].Body, []byte("signed in")) || bytes.Contains(reqs[1].Body, []byte("needs a sign-in")) {
		t.Fatalf("the tool did not answer after /mcp login:\n%s", ts.history())
	}
	ts.quit()
}
