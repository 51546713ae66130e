package cmd

import (
	"bufio"

	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// ctrl+c while agent starts (a SessionStart hook, the database opening)
// ends it as before, and the shell gets back a terminal that echoes: the
// default action of SIGINT left ECHO and ICRNL off, as the hold had set them.
func TestCtrlCWhileStartingLeavesTheTerminalAsItWas(t *testing.T) {
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here (/dev/ptmx: %v)", err)
	}
	defer ptm.Close()
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("no pseudo-terminal here (unlock: %v)", err)
	}
	n, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("no pseudo-terminal here (TIOCGPTN: %v)", err)
	}
	pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here (/dev/pts/%d: %v)", n, err)
	}
	defer pts.Close()
	before, err := unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if before.Lflag&unix.ECHO == 0 || before.Iflag&unix.ICRNL == 0 {
		t.Fatalf("a new pty without echo or icrnl: %+v", before)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(exe)
	child.Env = append(os.Environ(), "AGENT_TEST_HOLD_TYPEAHEAD=1")
	child.Stdin = pts
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "held\n" {
		_ = child.Process.Kill()
		t.Fatalf("child said %q, %v", line, err)
	}
	held, err := unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if held.Lflag&unix.ECHO != 0 {
		t.Fatal("echo still on while the type-ahead is held")
	}
	if err := child.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err = child.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("child: %v, want ended by SIGINT", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("child ended %v, want by SIGINT as an interrupted program does", err)
	}
	after, err := unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if after.Lflag&unix.ECHO == 0 || after.Iflag&unix.ICRNL == 0 {
		t.Errorf("ctrl+c while starting left the terminal without echo (%v) or icrnl (%v)", after.Lflag&unix.ECHO != 0, after.Iflag&unix.ICRNL != 0)
	}
}
