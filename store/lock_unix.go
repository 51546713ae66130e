//go:build unix

package store

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// pidAlive reports whether a process with pid exists on this host. EPERM
// means it exists but belongs to someone else. A zombie (ended, not yet
// reaped by its parent: a terminal multiplexer keeping a dead pane, say)
// holds nothing any more, so its locks are free.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return (err == nil || errors.Is(err, syscall.EPERM)) && !zombie(pid)
}

// zombie reads the process state from /proc where there is one (Linux);
// elsewhere it reports false.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) S …: comm may hold spaces and parentheses, so the state
	// is the field after the last ")".
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && len(b) > i+2 && b[i+2] == 'Z'
}
