//go:build unix

package store

import (
	"errors"
	"syscall"
)

// pidAlive reports whether a process with pid exists on this host. EPERM
// means it exists but belongs to someone else.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
