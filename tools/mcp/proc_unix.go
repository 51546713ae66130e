//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts a stdio server in its own process group and makes
// cancelling its context kill the whole group: servers started through npx
// or uvx run as grandchildren that killing the direct child would orphan.
// It also keeps the terminal's Ctrl-C (which cancels a turn) away from them.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// killGroup kills the process and every process of its group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// termGroup asks the process and every process of its group to stop.
func termGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}
