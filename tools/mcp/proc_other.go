//go:build !unix

package mcp

import "os/exec"

// ownProcessGroup is a no-op where process groups do not exist; cancelling
// the context kills the direct child only.
func ownProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the process (there are no process groups here).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// termGroup does nothing where there is no SIGTERM (Windows): the process
// is killed at the end of the grace instead.
func termGroup(cmd *exec.Cmd) {}
