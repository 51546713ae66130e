//go:build linux

package cmd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/store"
)

// inReadOnlyMount runs the test binary as the agent with args, with dir
// bind-mounted read-only in a mount namespace of its own (unshare -rm: no
// privileges needed where user namespaces are allowed). It skips when
// that cannot be had.
func inReadOnlyMount(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	if err := exec.Command("unshare", "-rm", "true").Run(); err != nil {
		t.Skipf("a read-only mount needs unshare (util-linux) and user namespaces: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Exit 97: the mount did not become read-only; the test cannot say.
	script := `mount --bind "$D" "$D" && mount -o remount,bind,ro "$D" || exit 97
touch "$D/.probe" 2>/dev/null && exit 97
exec "$EXE" "$@"`
	cmd := exec.Command("unshare", append([]string{"-rm", "sh", "-c", script, "sh"}, args...)...)
	cmd.Env = append(os.Environ(), "D="+dir, "EXE="+exe, "AGENT_TEST_AS_AGENT=1")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code == 97 {
		t.Skip("the bind mount could not be made read-only here")
	}
	return out.String(), errb.String(), code
}

// #26: `agent sessions` lists (and shows) the sessions of a database on a
// file system mounted read-only (EROFS, not a permission error), and an
// empty read-only data directory lists no sessions instead of failing.
func TestSessionsOnReadOnlyFileSystem(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "agent.db"))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := db.Create(context.Background(), store.SessionMeta{Workdir: "/w", Provider: "anthropic", Model: "claude-x", Title: "kept on a read-only disk"})
	if err != nil {
		t.Fatal(err)
	}
	// Listed: a session with no message is not.
	if err := ss.AppendMessage(context.Background(), agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hi")}}); err != nil {
		t.Fatal(err)
	}
	id := ss.ID()
	ss.Close()
	db.Close()

	out, errs, code := inReadOnlyMount(t, dir, "sessions", "--all", "--db", filepath.Join(dir, "agent.db"))
	if code != 0 || !strings.Contains(out, "kept on a read-only disk") || !strings.Contains(out, id) {
		t.Fatalf("agent sessions on a read-only file system: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	out, errs, code = inReadOnlyMount(t, dir, "sessions", "show", id, "--db", filepath.Join(dir, "agent.db"))
	if code != 0 {
		t.Fatalf("agent sessions show on a read-only file system: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}

	empty := t.TempDir()
	out, errs, code = inReadOnlyMount(t, empty, "sessions", "--db", filepath.Join(empty, "agent.db"))
	if code != 0 || !strings.Contains(out, "No sessions yet") {
		t.Fatalf("agent sessions with no database on a read-only file system: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Fatalf("the read-only directory got %d entries", len(entries))
	}
}
