package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// wrappedMCPConfig writes a config starting the test server tt through
// env(1) with extra as its environment: the definition carries no
// environment of its own, so a resume needs no value the session does not
// keep. (Given AGENT_TEST_MCP_SERVER itself, the agent under tmux would
// become that server.)
func wrappedMCPConfig(t *testing.T, extra ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skip("env(1) is not on PATH")
	}
	args := append(append([]string{"AGENT_TEST_MCP_SERVER=1"}, extra...), exe)
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"tt": map[string]any{"command": env, "args": args}}})
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// flat is the screen's text with its wrapping undone: words one space
// apart, so a sentence wrapped over lines is found whole.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// waitHistory polls the scrollback and screen until every want is in its
// flattened text, within screenWait.
func (ts *tmuxSession) waitHistory(want ...string) string {
	ts.t.Helper()
	deadline := time.Now().Add(screenWait)
	var h string
	for time.Now().Before(deadline) {
		h = flat(ts.history())
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(h, w)
		}
		if ok {
			return h
		}
		<-time.After(50 * time.Millisecond)
	}
	ts.t.Fatalf("the terminal never showed %q:\n%s", want, ts.history())
	return ""
}

// quitAndWait quits and waits until the program's process has ended: it
// holds its session until then, which under load can be well after it let
// go of the terminal (quit waits 5 s for that), and a resume meanwhile
// finds the session open in another process. Ended includes a zombie:
// tmux may reap a dead pane's process late, and a zombie holds no lock.
func (ts *tmuxSession) quitAndWait() {
	ts.t.Helper()
	ts.quit()
	ended := func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", ts.pid))
		i := bytes.LastIndexByte(b, ')')
		return !ts.running() || err == nil && i >= 0 && len(b) > i+2 && b[i+2] == 'Z'
	}
	deadline := time.Now().Add(60 * time.Second)
	for !ended() && time.Now().Before(deadline) {
		<-time.After(50 * time.Millisecond)
	}
	if !ended() {
		// Its goroutines say what it waits for. (os.Process.Signal, not
		// syscall.Kill, so the package's tests vet for Windows too.)
		if p, err := os.FindProcess(ts.pid); err == nil {
			_ = p.Signal(syscall.SIGQUIT)
		}
		for end := time.Now().Add(5 * time.Second); !ended() && time.Now().Before(end); {
			<-time.After(50 * time.Millisecond)
		}
		ts.t.Fatalf("the program (pid %d) did not end within a minute of quitting; its goroutines:\n%s", ts.pid, ts.history())
	}
}

// calledWeather reports whether a request carried tt's get_weather result
// for city back to the model: the tool was called and answered.
func calledWeather(fake *anthropictest.Server, city string) bool {
	for _, r := range fake.Requests() {
		for _, m := range r.Messages() {
			if strings.Contains(string(m), "tool_result") && strings.Contains(string(m), "Weather in "+city+": 21°C, sunny") {
				return true
			}
		}
	}
	return false
}

// #27 under tmux: a session whose server came from a --mcp-config file,
// resumed by ID and with --continue in the real TUI without the flag: the
// server is started from the session's definition and its tool answers; a
// server whose definition changed, or that needs a value the session does
// not keep, gets one line naming it and the file that would bring it back.
func TestResumeRemembersServersInTmux(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	db := filepath.Join(t.TempDir(), "a.db")
	cfg := wrappedMCPConfig(t)
	base := []string{"--provider", "anthropic", "--base-url", fake.URL, "--db", db}

	// A first session with tt from the file, calling its tool.
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "tt__get_weather", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "Sunny in Berlin."},
	))
	ts := startTmux(t, tmuxEnv(), append(base, "--mcp-config", cfg, "--mcp", "tt")...)
	ts.waitFor("/help")
	ts.send("Weather in Berlin?", "Enter")
	ts.waitFor("Sunny in Berlin.")
	if !calledWeather(fake, "Berlin") {
		t.Fatalf("tt's tool did not answer in the first session")
	}
	ts.quitAndWait()
	ids, err := runListSessions(t, db)
	if err != nil || len(ids) != 1 {
		t.Fatalf("sessions = %v, %v", ids, err)
	}
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}

	// Resumed by ID without the file or the flag: tt comes back from the
	// session and its tool is called.
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "tt__get_weather", Input: map[string]any{"city": "Oslo"}},
		anthropictest.Turn{Text: "Sunny in Oslo."},
	))
	ts = startTmux(t, tmuxEnv(), append(base, "--resume", ids[0])...)
	ts.waitFor("Sunny in Berlin.")
	ts.waitHistory("MCP server tt is not configured here: started from this session's definition", "from "+cfg)
	ts.send("Weather in Oslo?", "Enter")
	ts.waitFor("Sunny in Oslo.")
	if !calledWeather(fake, "Oslo") {
		t.Errorf("the remembered server's tool did not answer:\n%s", ts.history())
	}
	ts.quitAndWait()

	// --continue with tt defined otherwise: one line names it, the file it
	// came from and the one now in force, and the current definition runs.
	changed := wrappedMCPConfig(t, "AGENT_TEST_MCP_READONLY=1")
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "tt__get_weather", Input: map[string]any{"city": "Rome"}},
		anthropictest.Turn{Text: "Sunny in Rome."},
	))
	ts = startTmux(t, tmuxEnv(), append(base, "--continue", "--mcp-config", changed)...)
	ts.waitFor("Sunny in Oslo.")
	h := ts.waitHistory("MCP server tt changed since this session used it", "from "+cfg+"; now", "from "+changed+")")
	if n := strings.Count(h, "MCP server tt changed"); n != 1 || strings.Contains(h, "MCP server tt is not configured") {
		t.Errorf("want one line for tt, got %d and more:\n%s", n, ts.history())
	}
	ts.send("Weather in Rome?", "Enter")
	ts.waitFor("Sunny in Rome.")
	if !calledWeather(fake, "Rome") {
		t.Errorf("the changed server's tool did not answer:\n%s", ts.history())
	}
	ts.quit()

	// A session whose tt needs an environment variable the session does
	// not keep: resumed without it, one line names tt and the flag and
	// file that would bring it back, and the session goes on without it.
	db2 := filepath.Join(t.TempDir(), "b.db")
	id := rememberedSession(t, fake, db2)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Fine without it."}))
	ts = startTmux(t, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL, "--db", db2, "--resume", id)
	ts.waitFor("/help")
	h = ts.waitHistory("MCP server tt of this session is not configured here, and the session does not keep its environment AGENT_TEST_MCP_SERVER", "to bring it back")
	if !strings.Contains(h, "pass --mcp-config ") || !strings.Contains(h, "mcp.json to bring it back") {
		t.Errorf("the line does not name the flag and file:\n%s", ts.history())
	}
	ts.send("Still there?", "Enter")
	ts.waitFor("Fine without it.")
	ts.quit()
}

// agent --resume without an ID lists the stored sessions to pick from,
// not the empty one this run opened before the picker (it read "(untitled)
// 0 msgs" at the top, and choosing it resumed nothing).
func TestResumePickerListsStoredSessionsInTmux(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Noted."}))
	db := filepath.Join(t.TempDir(), "a.db")
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	if res := runAgent(t, env, "-p", "remember the parrot", "--base-url", fake.URL, "--db", db); res.code != 0 {
		t.Fatalf("-p: exit %d: %s", res.code, res.stderr)
	}
	ts := startTmux(t, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL, "--db", db, "--resume")
	screen := ts.waitFor("Resume a session", "remember the parrot")
	if strings.Contains(screen, "(untitled)") || strings.Contains(screen, "0 msgs") {
		t.Errorf("the picker lists this run's empty session:\n%s", screen)
	}
	ts.send("Enter")
	ts.waitFor("Noted.", "/help for commands")
	ts.quit()
}

// agent --resume with no ID and no key for the configured provider says
// how to resume anyway: the picker opens on the configured provider, but
// a session named by ID opens on its own (a demo session needs no key),
// and a new user who tried agent --demo was told only to export a key.
// It fails before the terminal UI starts, so the pane is kept by a shell
// (startTmuxKept): read from the dead pane, the test passed only when a
// slow exit (-race) let the screen be read in time.
func TestTUIResumePickerWithoutKeyNamesResumeByID(t *testing.T) {
	isolate(t)
	ts := startTmuxKept(t, 200, 10, map[string]string{"ANTHROPIC_API_KEY": ""}, "--resume")
	ts.waitFor("ANTHROPIC_API_KEY is not set", "a session named by ID resumes with its own provider: agent --resume ID (agent sessions lists them)", "[exit 2]")
}
