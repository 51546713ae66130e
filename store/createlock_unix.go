//go:build unix

package store

import (
	"os"
	"syscall"
)

// lockDir holds an exclusive flock(2) on dir until unlock is called: first
// starts of one database, in this process or others, take it in turn to
// look for, remove and replace a deleted database's files (createFile).
// ok is false where the file system takes no flock.
func lockDir(dir string) (unlock func(), ok bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true // closing the descriptor releases the lock
}
