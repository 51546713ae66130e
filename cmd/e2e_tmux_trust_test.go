package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// #26: in a real terminal, opening an untrusted directory whose project
// files would start a server and change the model asks first, listing
// them; "not now" starts nothing of the project, "trust" remembers the
// directory and applies them.
func TestTrustDialogInTmux(t *testing.T) {
	for _, answer := range []string{"n", "t"} {
		t.Run(answer, func(t *testing.T) {
			wd := isolate(t)
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			pidFile := filepath.Join(t.TempDir(), "server.pid")
			writeFile(t, filepath.Join(wd, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
				"projsrv": map[string]any{"command": exe, "args": []string{"--serve-the-project"},
					"env": map[string]string{"AGENT_TEST_MCP_SERVER": "1", "AGENT_TEST_MCP_PIDFILE": pidFile}},
			}})
			writeFile(t, filepath.Join(wd, ".agent", "config.json"), map[string]any{"model": "claude-haiku-4-5"})
			fake := anthropictest.NewServer(t)
			ts := startTmux(t, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"), "--theme", "dark")
			ts.waitFor("Trust this directory?", "projsrv", "--serve-the-project", `"claude-haiku-4-5"`, "not now")
			if _, err := os.Stat(pidFile); err == nil {
				t.Fatal("the project's server started before the answer")
			}
			ts.send(answer)
			ts.waitFor("/help")
			trusted, _, err := app.Trusted(wd)
			if err != nil {
				t.Fatal(err)
			}
			if answer == "n" {
				screen := ts.waitFor("agent trust")
				if trusted || strings.Contains(screen, "claude-haiku-4-5") {
					t.Errorf("not now: trusted %v, screen:\n%s", trusted, screen)
				}
				if _, err := os.Stat(pidFile); err == nil {
					t.Error("not now: the project's server started")
				}
			} else {
				// The status bar keeps saying that the project chose the model.
				screen := ts.waitFor("claude-haiku-4-5", "project: model")
				if !trusted {
					t.Errorf("trust: the directory is not trusted; screen:\n%s", screen)
				}
				if !waitUntilFile(pidFile, 30*time.Second) {
					t.Errorf("trust: the project's server never started:\n%s", ts.capture())
				}
			}
			if h := ts.history(); strings.Contains(h, "Trust this directory?") {
				t.Errorf("the answered question stays on the screen:\n%s", h)
			}
			ts.quit()
		})
	}
}

// A prompt typed while agent started in an untrusted clone is not lost to
// the trust question's guard: once the question is answered it is in the
// chat's input, not sent. ctrl+c during the guard says "not now" at once.
func TestTrustTypeAheadInTmux(t *testing.T) {
	for _, tc := range []struct{ name, typed, answer string }{
		{"typed ahead", "tell me about it", "n"},
		{"ctrl+c in the guard", "", "C-c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wd := isolate(t)
			writeFile(t, filepath.Join(wd, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
				"projsrv": map[string]any{"command": "true"},
			}})
			fake := anthropictest.NewServer(t)
			ts := startTmux(t, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"), "--theme", "dark")
			if tc.typed != "" {
				// Typed at once: before the question appears, or in its
				// first half second.
				ts.send(tc.typed)
				ts.waitFor("Trust this directory?", "not now")
				ts.send(tc.answer)
			} else {
				// Sent as soon as the question shows, well inside its guard
				// (the answers are not offered yet).
				ts.waitFor("Trust this directory?")
				ts.send(tc.answer)
			}
			// The chat's input holds the prompt (else its placeholder names
			// /help); the warning names agent trust: not now.
			want := "/help"
			if tc.typed != "" {
				want = "│ " + tc.typed
			}
			screen := ts.waitFor(want, "agent trust")
			if trusted, _, err := app.Trusted(wd); err != nil || trusted {
				t.Errorf("trusted %v (%v), want not now", trusted, err)
			}
			if n := len(fake.Requests()); n != 0 {
				t.Errorf("%d requests: the typed-ahead prompt was sent\n%s", n, screen)
			}
			ts.quit()
		})
	}
}

func waitUntilFile(path string, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		<-time.After(20 * time.Millisecond)
	}
	return false
}

func writeFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// #27: the first start in a new directory greets in plain words: the
// server that comes up is named with its tools, and nothing speaks of a
// prompt cache that no request has used yet.
func TestFirstStartGreetingInTmux(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	ts := startTmux(t, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"),
		"--mcp-config", testMCPConfig(t), "--mcp", "tt")
	screen := ts.waitFor("/help", "MCP server tt is up")
	for _, jargon := range []string{"cache", "tools array", "uncached"} {
		if strings.Contains(strings.ToLower(ts.history()), jargon) {
			t.Errorf("the first start speaks of %q:\n%s", jargon, screen)
		}
	}
	ts.quit()
}

// A cloned directory whose project files are broken (an .mcp.json that is
// not JSON, a config key that does not exist) is not trusted, so nothing
// of it runs: the TUI starts anyway, as -p does, and says the files could
// not be read. It exited 2 before its first frame.
func TestBrokenUntrustedProjectInTmux(t *testing.T) {
	for _, tc := range []struct {
		name, file, body, want string
	}{
		{"mcp.json not JSON", ".mcp.json", `{"mcpServers": {"x": {"command": "a\x"}}}`, "invalid character"},
		{"config unknown key", ".agent/config.json", `{"modle": "claude-haiku-4-5"}`, `unknown key "modle"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wd := isolate(t)
			path := filepath.Join(wd, filepath.FromSlash(tc.file))
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			fake := anthropictest.NewServer(t)
			ts := startTmux(t, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"))
			ts.waitFor("/help for commands", "could not be read", tc.want, "agent trust")
			ts.quit()
		})
	}
}
