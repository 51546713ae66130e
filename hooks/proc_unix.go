//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// ownGroup runs a hook in its own process group, and makes its timeout or
// the turn's cancellation kill the whole group: a hook script's own
// children (sleep, a formatter) die with it instead of lingering. The
// terminal's Ctrl-C, which cancels the turn, does not reach them directly.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
