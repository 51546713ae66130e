//go:build linux

package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid runs (a zombie waiting for a reaper does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitUntil polls cond until it holds or the deadline passes.
func waitUntil(t *testing.T, within time.Duration, cond func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// lingeringRun starts the agent (-p, against a provider that never
// answers) with a stdio server that ignores the end of its input, and
// returns once the request is out: the agent, its exit, its stderr and the
// server's pid.
func lingeringRun(t *testing.T) (*exec.Cmd, chan error, *strings.Builder, int) {
	t.Helper()
	asked, stop := make(chan struct{}, 1), make(chan struct{})
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		select { // never answers
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(provider.Close)
	t.Cleanup(func() { close(stop) })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "server.pid")
	cfg := writeJSON(t, "mcp.json", map[string]any{"mcpServers": map[string]any{
		"tt": map[string]any{"command": exe, "env": map[string]string{"AGENT_TEST_MCP_SERVER": "1",
			"AGENT_TEST_MCP_LINGER": "1", "AGENT_TEST_MCP_PIDFILE": pidFile}},
	}})
	cmd := exec.Command(exe, "-p", "hello", "--base-url", provider.URL, "--mcp-config", cfg, "--mcp", "tt",
		"--db", filepath.Join(t.TempDir(), "a.db"))
	cmd.Env = append(os.Environ(), "AGENT_TEST_AS_AGENT=1", "ANTHROPIC_API_KEY=sk-ant-test")
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	select {
	case <-asked:
	case err := <-exited:
		t.Fatalf("the agent exited before its request: %v\n%s", err, stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("no request reached the provider\n%s", stderr.String())
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the server wrote no pid: %v", err)
	}
	server, _ := strconv.Atoi(string(b))
	t.Cleanup(func() { _ = syscall.Kill(server, syscall.SIGKILL) })
	if !alive(server) {
		t.Fatal("the server is not running")
	}
	return cmd, exited, stderr, server
}

// #26: closing the terminal (SIGHUP) or SIGTERM ends a run as ctrl+c does:
// the agent exits, and a stdio server that ignores the end of its input is
// killed with its process group instead of surviving the agent.
func TestHangupEndsRunAndItsServers(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			isolate(t)
			cmd, exited, stderr, server := lingeringRun(t)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				var ee *exec.ExitError
				if ok := asExit(err, &ee); ok && ee.ProcessState.Sys().(syscall.WaitStatus).Signaled() {
					t.Errorf("the agent died of %s instead of ending its run", sig)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("the agent did not exit after %s\n%s", sig, stderr.String())
			}
			if !waitUntil(t, 10*time.Second, func() bool { return !alive(server) }) {
				t.Fatalf("the server (pid %d) survived the agent", server)
			}
		})
	}
}

// #26: an agent killed with SIGKILL cannot end its servers; the server it
// left running (adopted by init) is ended by the next start, found by its
// pid file, while the pid file of a live agent's server is left alone.
func TestKilledAgentsServerEndedAtNextStart(t *testing.T) {
	isolate(t)
	cmd, exited, _, server := lingeringRun(t)
	files, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_STATE_HOME"), "agent", "servers", "*.json"))
	if len(files) != 1 {
		t.Fatalf("pid files while the server runs: %v, want one", files)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	if !alive(server) {
		t.Fatal("the lingering server died with the agent: nothing left behind to test")
	}
	r := runAgent(t, nil, "mcp", "list")
	if r.code != 0 {
		t.Fatalf("agent mcp list: exit %d\n%s", r.code, r.stderr)
	}
	if !waitUntil(t, 10*time.Second, func() bool { return !alive(server) }) {
		t.Fatalf("the server (pid %d) left by the killed agent still runs after the next start", server)
	}
	if files, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_STATE_HOME"), "agent", "servers", "*.json")); len(files) != 0 {
		t.Errorf("pid files left: %v", files)
	}
}

func asExit(err error, target **exec.ExitError) bool {
	ee, ok := err.(*exec.ExitError)
	if ok {
		*target = ee
	}
	return ok
}
