//go:build !unix

package store

// pidAlive cannot probe a process here; the heartbeat decides instead.
func pidAlive(pid int) bool { return pid > 0 }
