package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/testgate"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// historyJoined is the pane's scrollback with the rows the terminal wrapped
// by itself joined again, as a selection copies them.
func (ts *tmuxSession) historyJoined() string {
	out, _ := exec.Command("tmux", "-L", ts.socket, "capture-pane", "-p", "-J", "-S", "-", "-E", "-").Output()
	return string(out)
}

// waitFile waits for a file a helper program writes.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return string(b)
		}
		<-time.After(50 * time.Millisecond)
	}
	t.Fatalf("%s was never written", path)
	return ""
}

// A sign-in from the TUI that the user does not finish, in a real
// terminal: the sign-in URL (longer than the row) copies out of the
// terminal exactly (it was wrapped by the chat with an indent on each row,
// so a copy had spaces and breaks inside it), and the lines that say the
// server needs a sign-in and that the sign-in failed each name the server
// once ("MCP server remote did not start: MCP server remote needs …") and
// the TUI's command to try again (the failure named the shell's).
func TestSignInLinesInTmux(t *testing.T) {
	isolate(t)
	_, cfg := protectedMCP(t)
	env := signInEnv(t)
	dir := t.TempDir()
	urlFile := filepath.Join(dir, "url")
	// A browser that only notes the URL: the sign-in is never finished.
	browser := filepath.Join(dir, "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s' \"$1\" > '"+urlFile+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env["BROWSER"] = browser
	conf := writeJSON(t, "config.json", map[string]any{"oauth_timeout": "2s"})
	fake := anthropictest.NewServer(t)
	ts := startTmuxSize(t, 200, 40, env, "--config", conf, "--mcp-config", cfg, "--mcp", "remote", "--provider", "anthropic", "--base-url", fake.URL)
	ts.waitFor("MCP server remote did not start")
	ts.send("/mcp login remote", "Enter")
	u := waitFile(t, urlFile)
	ts.waitFor("sign-in to MCP server remote failed")
	h := ts.historyJoined()
	if !strings.Contains(h, u) {
		t.Errorf("the sign-in URL does not copy out of the terminal whole:\n%s\nwant %s", h, u)
	}
	want := map[string]string{
		"did not start": "MCP server remote did not start: it needs a sign-in: run `/mcp login remote`",
		"failed":        "sign-in to MCP server remote failed: no sign-in within 2s (oauth_timeout); run `/mcp login remote` to try again",
	}
	for key, line := range want {
		found := false
		for l := range strings.SplitSeq(h, "\n") {
			if strings.Contains(l, key) {
				found = true
				if !strings.Contains(l, line) || strings.Count(l, "remote") != 2 {
					t.Errorf("line %q, want one naming the server once: %q", l, line)
				}
			}
		}
		if !found {
			t.Errorf("no line says %q:\n%s", key, h)
		}
	}
	ts.quit()
}

// --model haiku and /model opus in a real terminal: the aliases a profile
// takes are the provider's ids here too (the flag sent "haiku" as the
// model id), and --help says so.
func TestModelAliasesInTmux(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "First."}, anthropictest.Turn{Text: "Second."}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "HOME": os.Getenv("HOME"),
		"XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "XDG_DATA_HOME": os.Getenv("XDG_DATA_HOME")}
	ts := startTmux(t, env, "--provider", "anthropic", "--base-url", fake.URL, "--model", "haiku")
	ts.waitFor("anthropic/claude-haiku-4-5")
	ts.send("hello", "Enter")
	ts.waitFor("First.")
	ts.send("/model opus", "Enter")
	ts.waitFor("anthropic/claude-opus-4-5")
	ts.send("again", "Enter")
	ts.waitFor("Second.")
	ts.quit()
	var models []string
	for _, r := range fake.Requests() {
		// Typing /model NAME also lists the provider's models (GET
		// /v1/models, 0861f32): only the turns' requests name a model.
		if r.Path == "/v1/messages" {
			models = append(models, r.Model())
		}
	}
	if strings.Join(models, " ") != "claude-haiku-4-5 claude-opus-4-5" {
		t.Errorf("the requests named models %q, want claude-haiku-4-5 then claude-opus-4-5", models)
	}
	help := runAgent(t, nil, "--help")
	if !strings.Contains(help.stdout, "sonnet, opus or haiku") {
		t.Errorf("--help does not list the aliases:\n%s", help.stdout)
	}
}

// A sampling approval in a real terminal whose server dies while the
// dialog is up: the dialog goes away by itself with one line saying why
// (it stayed up, and a y then answered a request nobody waited for).
func TestSamplingDialogWithdrawnInTmux(t *testing.T) {
	isolate(t)
	gate := testgate.New(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := writeJSON(t, "mcp.json", map[string]any{"mcpServers": map[string]any{
		"tt": map[string]any{"command": exe, "env": map[string]string{"AGENT_TEST_MCP_SERVER": "1", "AGENT_TEST_MCP_SAMPLE_GATE": gate.Addr()}}}})
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "tt__ask_model", Input: map[string]any{}},
		anthropictest.Turn{Text: "The server went away."}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "HOME": os.Getenv("HOME"),
		"XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "XDG_DATA_HOME": os.Getenv("XDG_DATA_HOME")}
	ts := startTmux(t, env, "--provider", "anthropic", "--base-url", fake.URL, "--mcp-config", cfg, "--mcp", "tt",
		"--defer", "false", "--permission-mode", "bypass")
	ts.waitFor("MCP server tt is up")
	ts.send("write me a haiku", "Enter")
	ts.waitFor("Let MCP server tt sample claude-sonnet-4-5?")
	gate.Open()
	ts.waitFor("sample claude-sonnet-4-5 for tt: withdrawn unanswered, the connection to the server was lost")
	if s := ts.capture(); strings.Contains(s, "y allow once") {
		t.Errorf("the dialog is still up:\n%s", s)
	}
	ts.waitFor("The server went away.")
	ts.quit()
}

// The agent as a tmux pane's first program, inline: no "starting…" line
// (drawn before the terminal's size was known) is left above the input.
func TestNoStartingLineInTmux(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "HOME": os.Getenv("HOME"),
		"XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "XDG_DATA_HOME": os.Getenv("XDG_DATA_HOME")}
	ts := startTmuxSize(t, 100, 30, env, "--provider", "anthropic", "--base-url", fake.URL)
	ts.waitFor("/help for commands", "sess ")
	if h := ts.history(); strings.Contains(h, "starting…") {
		t.Errorf("a starting… line stayed on the terminal:\n%s", h)
	}
	ts.quit()
}

// Claude Code's CLAUDE_CODE_SUBAGENT_MODEL in a real terminal: a subagent
// whose profile names no model runs on it (an alias, resolved), not on the
// parent's --model; the card says so.
func TestSubagentModelVariableInTmux(t *testing.T) {
	isolate(t)
	profile := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agent", "agents", "helper.md")
	if err := os.MkdirAll(filepath.Dir(profile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(profile, []byte("---\ndescription: Helps\nsubagent: true\n---\nYou are the helper.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := anthropictest.NewServer(t)
	var mu sync.Mutex
	var models []string
	parent := 0
	fake.SetHandler(func(r *anthropictest.Request) anthropictest.Reply {
		mu.Lock()
		defer mu.Unlock()
		models = append(models, r.Model())
		if bytes.Contains(r.Body, []byte("You are the helper.")) {
			return anthropictest.Message(anthropictest.Text("helped"))
		}
		if parent++; parent > 1 {
			return anthropictest.Message(anthropictest.Text("All helped."))
		}
		rep := anthropictest.Message(anthropictest.ToolUse("toolu_01", "run_agent", map[string]any{"agent": "helper", "prompt": "Help."}))
		rep.StopReason = "tool_use"
		return rep
	})
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "CLAUDE_CODE_SUBAGENT_MODEL": "haiku", "HOME": os.Getenv("HOME"),
		"XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "XDG_DATA_HOME": os.Getenv("XDG_DATA_HOME")}
	ts := startTmux(t, env, "--provider", "anthropic", "--base-url", fake.URL, "--model", "opus")
	ts.waitFor("/help")
	ts.send("get help", "Enter")
	// Inline, a finished item leaves the redrawn area a frame before it is
	// printed to the scrollback (printDelay, and longer under load: 0.1-0.4 s
	// at load 15 with -race), so the answer can be on the screen while the
	// card, gone from the screen, is not yet in the scrollback: wait for
	// both there. A card that never names the model fails the wait.
	const card = "⇢ helper · subagent · anthropic/claude-haiku-4-5"
	if h := ts.waitHistory(card, "All helped."); strings.Index(h, card) > strings.Index(h, "All helped.") {
		t.Errorf("the subagent's card is below the answer:\n%s", ts.history())
	}
	ts.quit()
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(models, " ") != "claude-opus-4-5 claude-haiku-4-5 claude-opus-4-5" {
		t.Errorf("models requested %q, want the parent on claude-opus-4-5 and the child on claude-haiku-4-5", models)
	}
}
