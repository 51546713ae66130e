package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// tmuxSession runs the agent command in a real terminal under tmux.
type tmuxSession struct {
	t      *testing.T
	socket string
	pid    int  // the program's process: quit waits for it to be gone
	keep   bool // started by startTmuxKept: pid is the shell's
}

func startTmux(t *testing.T, env map[string]string, args ...string) *tmuxSession {
	t.Helper()
	return startTmuxSize(t, 120, 40, env, args...)
}

// startTmuxSize is startTmux in a terminal of width × height cells.
func startTmuxSize(t *testing.T, width, height int, env map[string]string, args ...string) *tmuxSession {
	t.Helper()
	return startTmuxOpts(t, &tmuxSession{t: t}, width, height, env, args...)
}

// startTmuxKept is startTmuxSize for a program expected to exit at once
// (an error before the terminal UI): the pane keeps what it printed and
// then "[exit CODE]".
func startTmuxKept(t *testing.T, width, height int, env map[string]string, args ...string) *tmuxSession {
	t.Helper()
	return startTmuxOpts(t, &tmuxSession{t: t, keep: true}, width, height, env, args...)
}

func startTmuxOpts(t *testing.T, ts *tmuxSession, width, height int, env map[string]string, args ...string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: install it (apt-get install tmux; .ci/run does) to run the terminal tests")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ts.socket = fmt.Sprintf("agent-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	var envs []string
	env["AGENT_TEST_AS_AGENT"] = "1"
	env["TERM"] = "xterm-256color"
	for k, v := range env {
		envs = append(envs, "-e", k+"="+v)
	}
	cmdArgs := append([]string{"-L", ts.socket, "new-session", "-d", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height)}, envs...)
	if ts.keep {
		// tmux 3.3a shows a dead pane blank (remain-on-exit keeps the pane,
		// not what it showed): a program that fails at once is read from a
		// shell that outlives it, which also says how it exited.
		cmdArgs = append(cmdArgs, "sh", "-c", `"$0" "$@"; echo "[exit $?]"; exec sleep 600`)
	}
	cmdArgs = append(cmdArgs, append([]string{exe}, args...)...)
	// Keep the pane after the program exits, to read what it left: set in
	// the same command queue, before tmux can see a short program end.
	cmdArgs = append(cmdArgs, ";", "set-option", "-g", "remain-on-exit", "on")
	if out, err := exec.Command("tmux", cmdArgs...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	if out, err := exec.Command("tmux", "-L", ts.socket, "display-message", "-p", "#{pane_pid}").Output(); err == nil {
		ts.pid, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", ts.socket, "kill-server").Run() })
	return ts
}

// screenWait bounds every wait for the screen: long, because it is only
// ever reached when a test fails, and a run of the whole suite beside
// other builds (load 20-30 on two cores) takes over 30 s for a turn of two
// subagents.
const screenWait = 60 * time.Second

func (ts *tmuxSession) capture() string {
	out, _ := exec.Command("tmux", "-L", ts.socket, "capture-pane", "-p").Output()
	return string(out)
}

// history is the pane's scrollback and screen: what a user scrolls back to.
func (ts *tmuxSession) history() string {
	out, _ := exec.Command("tmux", "-L", ts.socket, "capture-pane", "-p", "-S", "-", "-E", "-").Output()
	return string(out)
}

// quit presses ctrl+c (the first on an idle prompt shows a hint, the
// second quits) until the program has exited, which ends its tmux session.
func (ts *tmuxSession) quit() {
	ts.t.Helper()
	deadline := time.Now().Add(screenWait)
	next := time.Now()
	for time.Now().Before(deadline) {
		if exec.Command("tmux", "-L", ts.socket, "has-session").Run() != nil || ts.exited() {
			// The pane dies when the program lets go of the terminal, which
			// can be before its process ends; a later run on the same
			// session needs the first to have let go of it too, so give
			// the process a bounded while to be gone.
			for gone := time.Now().Add(5 * time.Second); ts.running() && time.Now().Before(gone); {
				<-time.After(20 * time.Millisecond)
			}
			return
		}
		if time.Now().After(next) {
			ts.send("C-c")
			next = time.Now().Add(500 * time.Millisecond)
		}
		<-time.After(50 * time.Millisecond)
	}
	ts.t.Fatalf("the program did not quit:\n%s", ts.capture())
}

// waitForTools waits until the status bar shows the deferred tools
// registered: servers start in the background, and the search mode reads
// "native→off" until there is something to search.
func (ts *tmuxSession) waitForTools() {
	ts.t.Helper()
	deadline := time.Now().Add(screenWait)
	var screen string
	for time.Now().Before(deadline) {
		screen = ts.capture()
		if strings.Contains(screen, "search native") && !strings.Contains(screen, "native→off") {
			return
		}
		<-time.After(50 * time.Millisecond)
	}
	ts.t.Fatalf("the tools never registered:\n%s", screen)
}

// exited reports whether the program ended (the pane remains on exit).
func (ts *tmuxSession) exited() bool {
	out, err := exec.Command("tmux", "-L", ts.socket, "display-message", "-p", "#{pane_dead}").Output()
	return err == nil && strings.TrimSpace(string(out)) == "1"
}

// running reports whether the program's process still exists (a zombie
// counts: it may hold what it has not yet released to the kernel).
func (ts *tmuxSession) running() bool {
	if ts.pid <= 0 {
		return false
	}
	p, err := os.FindProcess(ts.pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

func (ts *tmuxSession) send(keys ...string) {
	ts.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-L", ts.socket, "send-keys"}, keys...)...).CombinedOutput(); err != nil {
		ts.t.Fatalf("send-keys: %v: %s", err, out)
	}
}

// waitFor polls the screen until every want is on it, with a deadline.
func (ts *tmuxSession) waitFor(want ...string) string {
	ts.t.Helper()
	deadline := time.Now().Add(screenWait)
	var screen string
	for time.Now().Before(deadline) {
		screen = ts.capture()
		ok := true
		for _, w := range want {
			if !strings.Contains(screen, w) {
				ok = false
				break
			}
		}
		if ok {
			return screen
		}
		<-time.After(50 * time.Millisecond)
	}
	ts.t.Fatalf("screen never showed %q:\n%s", want, screen)
	return ""
}

// The real program in a real terminal against the fake provider: a typed
// prompt leads to a native search shown live in the pane, the tool call and
// the answer; quitting and resuming by ID shows the history again.
func TestTUIInTmux(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "It is **sunny** in Berlin today."},
	))
	db := filepath.Join(t.TempDir(), "a.db")
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "HOME": os.Getenv("HOME"),
		"XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "XDG_DATA_HOME": os.Getenv("XDG_DATA_HOME")}
	args := []string{"--provider", "anthropic", "--base-url", fake.URL, "--db", db,
		"--mcp-config", testMCPConfig(t), "--mcp", "tt", "--defer", "--theme", "dark"}
	ts := startTmux(t, env, args...)
	// Servers start in the background; the status bar says when the
	// deferred tools are there to search.
	ts.waitFor("/help")
	ts.waitForTools()
	ts.send("Weather in Berlin?", "Enter")
	screen := ts.waitFor("weather forecast", "tt__get_weather", "sunny in Berlin")
	if !strings.Contains(screen, "provider search") {
		t.Errorf("the search line does not say the provider searched:\n%s", screen)
	}
	ts.quit()
	// Inline: the conversation stays in the terminal after exit.
	if h := ts.history(); !strings.Contains(h, "Weather in Berlin?") || !strings.Contains(h, "sunny in Berlin") || !strings.Contains(h, "resume it with") {
		t.Errorf("the transcript is not left in the scrollback after exit:\n%s", h)
	}
	rows, err := runListSessions(t, db)
	if err != nil || len(rows) != 1 {
		t.Fatalf("sessions = %v, %v", rows, err)
	}
	ts2 := startTmux(t, env, "--db", db, "--base-url", fake.URL, "--mcp-config", testMCPConfig(t), "--resume", rows[0])
	ts2.waitFor("sunny in Berlin", "weather forecast", "resumed")
	ts2.waitForTools()
	// A new turn on the resumed session reuses the fake's call ids: its
	// search and card show all the same (#18 bug 1).
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Paris"}},
		anthropictest.Turn{Text: "Rainy in Paris."},
	))
	ts2.send("And Paris?", "Enter")
	ts2.waitFor("Rainy in Paris")
	// A finished card leaves the redrawn area a frame before it is printed
	// above it (inline.go, printDelay): under load a capture can fall in
	// between, so the transcript is read until it settles.
	deadline := time.Now().Add(10 * time.Second)
	h := ts2.history()
	for (strings.Count(h, "provider search") < 2 || !strings.Contains(h, `"Paris"`)) && time.Now().Before(deadline) {
		<-time.After(50 * time.Millisecond)
		h = ts2.history()
	}
	if strings.Count(h, "provider search") < 2 || !strings.Contains(h, `"Paris"`) {
		t.Errorf("the new turn's search or card is missing:\n%s", h)
	}
}

func runListSessions(t *testing.T, db string) ([]string, error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		res := runAgent(t, nil, "sessions", "--db", db)
		var ids []string
		for _, line := range strings.Split(res.stdout, "\n")[1:] {
			if f := strings.Fields(line); len(f) > 0 {
				ids = append(ids, f[0])
			}
		}
		// The first process may still hold the session while it exits.
		if res.code == 0 && len(ids) > 0 || time.Now().After(deadline) {
			if res.code != 0 {
				return nil, fmt.Errorf("%s", res.stderr)
			}
			return ids, nil
		}
		<-time.After(50 * time.Millisecond)
	}
}

// Completion and drafts in the real program: "/mo" + Tab completes to
// "/model ", ctrl+c clears the draft without quitting (an empty prompt
// arms quit), and "/model" opens the picker, which filters as one types.
func TestTUICompletionAndDraftInTmux(t *testing.T) {
	isolate(t)
	db := filepath.Join(t.TempDir(), "a.db")
	env := map[string]string{"HOME": os.Getenv("HOME"), "XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "XDG_DATA_HOME": os.Getenv("XDG_DATA_HOME")}
	fake := anthropictest.NewServer(t)
	env["ANTHROPIC_API_KEY"] = anthropictest.DefaultAPIKey
	ts := startTmux(t, env, "--provider", "anthropic", "--base-url", fake.URL, "--db", db)
	ts.waitFor("/help for commands")
	ts.send("/mo")
	ts.waitFor("switch the model")
	ts.send("Tab")
	ts.waitFor("│ /model ")
	ts.send("C-c")
	screen := ts.waitFor("/help for commands")
	if strings.Contains(screen, "press ctrl+c again") || ts.exited() {
		t.Fatalf("ctrl+c on a draft armed quit:\n%s", screen)
	}
	ts.send("/model", "Enter")
	ts.waitFor("Switch model", "claude-")
	ts.send("haiku-4")
	screen = ts.waitFor("filter › haiku-4", "claude-haiku-4-5")
	if strings.Contains(screen, "claude-opus") || strings.Contains(screen, "claude-3-5-haiku") {
		t.Errorf("the picker does not filter:\n%s", screen)
	}
	ts.send("Enter")
	ts.waitFor("model set to claude-haiku-4-5", "anthropic/claude-haiku-4-5")
	ts.quit()
}
