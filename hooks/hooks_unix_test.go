//go:build unix

package hooks

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A hook that hangs is killed at its timeout with its children, and the
// others' answers still count.
func TestTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	h, _, err := Compile(Config{"PreToolUse": {{Hooks: []Command{
		{Type: "command", Command: "sleep 300 & echo $! > " + pidFile + "; wait", Timeout: 0.3},
		{Type: "command", Command: `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}'`},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	o := (&Runner{Hooks: h, Dir: dir}).Run(t.Context(), PreToolUse, "x", Input{})
	if len(o.Notes) != 1 || !strings.Contains(o.Notes[0], "timed out after 300ms") || o.Decision != "deny" {
		t.Fatalf("outcome %+v", o)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(must(os.ReadFile(pidFile)))))
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
}

// waitGone waits until pid no longer runs (a killed child is reaped by
// init a moment later).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		if syscall.Kill(pid, 0) != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs after its hook timed out", pid)
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-t.Context().Done():
			return
		}
	}
}
