package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// Hooks in a real terminal: a PreToolUse hook's exit 2 refuses the call and
// its reason shows on the card; a prompt a UserPromptSubmit hook refuses
// is never sent, its reason is shown and the prompt comes back to the
// input.
func TestHooksInTmux(t *testing.T) {
	isolate(t)
	userHooks(t, `{
		"PreToolUse": [{"matcher": "tt__get_weather", "hooks": [{"type": "command", "command": "echo 'weather lookups are off today' >&2; exit 2"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "grep -q secret && { echo 'no secrets in prompts' >&2; exit 2; }; exit 0"}]}]}`)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "tt__get_weather", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "Lookups are off, sorry."},
	))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "HOME": os.Getenv("HOME"),
		"XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "XDG_DATA_HOME": os.Getenv("XDG_DATA_HOME")}
	ts := startTmux(t, env, "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"),
		"--mcp-config", testMCPConfig(t), "--mcp", "tt", "--theme", "dark")
	ts.waitFor("/help")
	ts.send("Weather in Berlin?", "Enter")
	ts.waitFor("weather lookups are off today", "Lookups are off, sorry.")
	if n := len(fake.Requests()); n != 2 {
		t.Fatalf("%d requests", n)
	}
	ts.send("my secret plan", "Enter")
	screen := ts.waitFor("no secrets in prompts")
	if strings.Count(screen, "my secret plan") < 2 {
		t.Errorf("the refused prompt is not back in the input:\n%s", screen)
	}
	if n := len(fake.Requests()); n != 2 {
		t.Errorf("the refused prompt was sent: %d requests", n)
	}
	ts.quit()
}

// A resumed session shows a hook's context as the hook's, not under
// "› you" as if the user had typed it.
func TestResumedHookContextInTmux(t *testing.T) {
	isolate(t)
	userHooks(t, `{
		"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo 'sprint goal: ship hooks'"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'branch: main'"}]}]}`)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Ship it."}))
	db := filepath.Join(t.TempDir(), "a.db")
	res := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}, "-p", "what now?", "--base-url", fake.URL, "--db", db)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	ts := startTmux(t, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL, "--db", db, "--continue", "--theme", "dark")
	screen := ts.waitFor("Ship it.", "↳ added by the SessionStart hook: sprint goal: ship hooks", "↳ added by the UserPromptSubmit hook: branch: main")
	if strings.Contains(screen, "hook context:") {
		t.Errorf("a hook's context is shown as the user's message:\n%s", screen)
	}
	ts.quit()
}

// A prompt typed while the TUI starts (here while a SessionStart hook
// runs, before the TUI has the terminal) is sent by its enter, and is not
// echoed above the first frame: the terminal, still in the shell's cooked
// mode, echoed it and turned the enter into a newline, so the prompt sat
// in the input over two lines, unsent.
func TestPromptTypedWhileStartingInTmux(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	started, goOn := filepath.Join(dir, "started"), filepath.Join(dir, "go")
	userHooks(t, `{"SessionStart": [{"hooks": [{"type": "command", "command": "touch `+started+`; while [ ! -e `+goOn+` ]; do sleep 0.05; done"}]}]}`)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Typed early, answered."}))
	ts := startTmux(t, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(dir, "a.db"), "--theme", "dark")
	for deadline := time.Now().Add(screenWait); ; <-time.After(20 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the SessionStart hook never ran:\n%s", ts.capture())
		}
	}
	ts.send("-l", "typed while starting")
	ts.send("Enter")
	if err := os.WriteFile(goOn, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	screen := ts.waitFor("Typed early, answered.")
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("%d requests, want the typed prompt sent once", n)
	}
	if strings.HasPrefix(ts.history(), "typed while starting") {
		t.Errorf("the terminal echoed the prompt above the first frame:\n%s", ts.history())
	}
	if strings.Count(screen, "typed while starting") != 1 {
		t.Errorf("the prompt is not shown once, as sent:\n%s", screen)
	}
	ts.quit()
}
