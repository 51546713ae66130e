//go:build unix

package store

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agent-dev/agent/agent"
)

// The test binary doubles as a second agent process: with STORE_HELPER set
// it runs that helper instead of the tests.
func TestMain(m *testing.M) {
	switch os.Getenv("STORE_HELPER") {
	case "":
		goleak.VerifyTestMain(m) // fails when a goroutine outlives the tests
	case "hold":
		os.Exit(helperHold())
	case "crash":
		os.Exit(helperCrash())
	case "open":
		os.Exit(helperOpen())
	case "exit-close":
		os.Exit(helperExitClose())
	case "tool-crash":
		os.Exit(helperToolCrash())
	case "list-ro":
		d, err := OpenReadOnly(context.Background(), os.Getenv("STORE_DB"))
		if err != nil {
			fmt.Println("error", err)
			os.Exit(0)
		}
		list, err := d.List(context.Background(), ListOptions{})
		d.Close()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(0)
		}
		fmt.Println("ok", len(list))
		os.Exit(0)
	case "open-on-go":
		// Waits for a line on stdin so that several start at once.
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(helperOpen())
	default:
		fmt.Fprintln(os.Stderr, "unknown helper")
		os.Exit(3)
	}
}

// helperHold opens a session and holds its lock until stdin closes.
func helperHold() int {
	ctx := context.Background()
	d, err := Open(ctx, os.Getenv("STORE_DB"))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	s, err := d.OpenSession(ctx, os.Getenv("STORE_SESSION"))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("ready", os.Getpid())
	io.Copy(io.Discard, os.Stdin)
	s.Close()
	d.Close()
	return 0
}

// helperCrash appends the test conversation message by message, then
// streams a partial answer until it is killed.
func helperCrash() int {
	ctx := context.Background()
	d, err := Open(ctx, os.Getenv("STORE_DB"))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	s, err := d.Create(ctx, SessionMeta{Workdir: "/w", Provider: "anthropic", Model: "m"})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("session", s.ID())
	for i, m := range conversation() {
		if err := s.AppendMessage(ctx, m); err != nil {
			fmt.Println("error", err)
			return 1
		}
		fmt.Println("appended", i+1)
	}
	if err := s.AppendMessage(ctx, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("tell me more")}}); err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("appended", len(conversation())+1)
	text := ""
	for i := 1; i < 1_000_000; i++ {
		text += fmt.Sprintf("chunk %d. ", i)
		if err := s.SavePartial(ctx, agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart(text)}}); err != nil {
			fmt.Println("error", err)
			return 1
		}
		fmt.Println("partial", i)
	}
	return 0
}

// helperOpen tries to open STORE_DB and prints the outcome.
func helperOpen() int {
	d, err := Open(context.Background(), os.Getenv("STORE_DB"))
	if err != nil {
		fmt.Println("error", err)
		return 0
	}
	d.Close()
	fmt.Println("ok")
	return 0
}

type helper struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Scanner
}

func startHelper(t *testing.T, mode string, env ...string) *helper {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"STORE_HELPER=" + mode}, env...)...)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helper{cmd: cmd, stdin: in, lines: bufio.NewScanner(out)}
	t.Cleanup(func() {
		h.cmd.Process.Kill()
		h.cmd.Wait()
	})
	return h
}

// until reads the helper's lines until one starts with prefix.
func (h *helper) until(t *testing.T, prefix string) string {
	t.Helper()
	for h.lines.Scan() {
		l := h.lines.Text()
		if strings.HasPrefix(l, "error") {
			t.Fatalf("helper: %s", l)
		}
		if strings.HasPrefix(l, prefix) {
			return strings.TrimSpace(strings.TrimPrefix(l, prefix))
		}
	}
	t.Fatalf("helper ended before %q", prefix)
	return ""
}

func TestCrashMidStreamKeepsEveryCompletedMessage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	h := startHelper(t, "crash", "STORE_DB="+path)
	id := h.until(t, "session ")
	h.until(t, "partial 30")
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	h.cmd.Wait()

	ctx := t.Context()
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("database does not open after kill -9: %v", err)
	}
	defer d.Close()
	var check string
	d.sql.QueryRow("PRAGMA integrity_check").Scan(&check)
	if check != "ok" {
		t.Fatalf("integrity_check: %s", check)
	}
	s, err := d.OpenSession(ctx, id)
	if err != nil {
		t.Fatalf("reopen session after kill -9 (the dead pid's lock must be taken over): %v", err)
	}
	defer s.Close()
	got, err := s.LoadRepaired(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := append(conversation(), agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("tell me more")}})
	if len(got) != len(want)+1 || !reflect.DeepEqual(got[:len(want)], want) {
		t.Fatalf("completed messages lost: got %d messages, want %d then the partial", len(got), len(want))
	}
	last := got[len(got)-1]
	if last.Role != agent.RoleAssistant || !last.Interrupted || !strings.HasPrefix(last.Text(), "chunk 1. chunk 2. ") ||
		!strings.Contains(last.Text(), "chunk 30. ") {
		t.Fatalf("partial answer not kept as interrupted: %+v", last)
	}
}

func TestSessionOpenInAnotherProcessIsRefused(t *testing.T) {
	ctx := t.Context()
	d, path := openTest(t)
	s := create(t, d, "/w")
	appendAll(t, s, conversation()[0])
	id := s.ID()
	s.Close()

	h := startHelper(t, "hold", "STORE_DB="+path, "STORE_SESSION="+id)
	pid, _ := strconv.Atoi(h.until(t, "ready "))

	_, err := d.OpenSession(ctx, id)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) || le.PID != pid {
		t.Fatalf("err = %v; want a LockedError naming pid %d", err, pid)
	}
	want := fmt.Sprintf("session %s is open in another agent process (pid %d", id, pid)
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q lacks %q", err, want)
	}
	if _, err := d.Delete(ctx, id); !errors.Is(err, ErrLocked) {
		t.Fatalf("delete of a held session: %v", err)
	}
	// Reading it is fine.
	if e, err := d.Export(ctx, id); err != nil || len(e.Messages) != 1 {
		t.Fatalf("export of a held session: %v", err)
	}
	// Other sessions are writable meanwhile.
	other := create(t, d, "/w")
	appendAll(t, other, conversation()...)

	// The lock of a process killed without closing is taken over.
	h.cmd.Process.Signal(syscall.SIGKILL)
	h.cmd.Wait()
	s2, err := d.OpenSession(ctx, id)
	if err != nil {
		t.Fatalf("dead process's lock not taken over: %v", err)
	}
	s2.Close()

	// A clean exit releases it too.
	h = startHelper(t, "hold", "STORE_DB="+path, "STORE_SESSION="+id)
	h.until(t, "ready ")
	h.stdin.Close()
	h.cmd.Wait()
	s3, err := d.OpenSession(ctx, id)
	if err != nil {
		t.Fatalf("after clean exit: %v", err)
	}
	s3.Close()
}

func TestTwoHandlesShareTheDatabase(t *testing.T) {
	ctx := t.Context()
	d1, path := openTest(t)
	d2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	a := create(t, d1, "/w")
	b := create(t, d2, "/w")
	// Interleaved writes from both handles.
	for _, m := range conversation() {
		appendAll(t, a, m)
		appendAll(t, b, m)
	}
	if _, err := d2.OpenSession(ctx, a.ID()); !errors.Is(err, ErrLocked) {
		t.Fatalf("second writer on one session: %v", err)
	}
	for _, d := range []*DB{d1, d2} {
		l, err := d.List(ctx, ListOptions{})
		if err != nil || len(l) != 2 || l[0].Messages != 6 || l[1].Messages != 6 {
			t.Fatalf("list = %+v, %v", l, err)
		}
	}
	a.Close()
	a2, err := d2.OpenSession(ctx, a.ID())
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, a2, conversation()[0])
	a2.Close()
}

func TestStaleLockAndLostLock(t *testing.T) {
	ctx := t.Context()
	d, _ := openTest(t)
	clock := time.Now()
	d.now = func() time.Time { return clock }
	s := create(t, d, "/w")
	id := s.ID()
	s.Close()
	// Another host's lock with a fresh heartbeat holds; a stale one does not.
	if _, err := d.sql.Exec(`INSERT INTO session_locks VALUES (?, 'tok', 1, 'elsewhere', ?, ?)`, id, ms(clock), ms(clock)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.OpenSession(ctx, id); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "on elsewhere") {
		t.Fatalf("fresh foreign lock: %v", err)
	}
	clock = clock.Add(d.staleAfter + time.Second)
	s2, err := d.OpenSession(ctx, id)
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	defer s2.Close()
	// If someone takes it over anyway, our next write says so.
	if _, err := d.sql.Exec(`UPDATE session_locks SET token = 'thief', pid = 1, host = 'elsewhere' WHERE session_id = ?`, id); err != nil {
		t.Fatal(err)
	}
	err = s2.AppendMessage(ctx, conversation()[0])
	if !errors.Is(err, ErrLockLost) {
		t.Fatalf("write after takeover: %v", err)
	}
	b, _ := json.Marshal(err.Error())
	if !strings.Contains(string(b), "taken over") {
		t.Fatalf("message: %s", b)
	}
}
