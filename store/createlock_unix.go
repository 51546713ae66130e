//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// lockDir holds an exclusive flock(2) on dir until unlock is called: first
// starts of one database, in this process or others, take it in turn to
// look for, remove and replace a deleted database's files (createFile).
// ok is false where the file system takes no flock, or when the lock is
// still held after lockWait: each holds it for a few system calls, so
// one that does not let go (a process stopped while it held it) costs a
// first start that wait, not its start.
func lockDir(dir string) (unlock func(), ok bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	for deadline := time.Now().Add(lockWait); ; {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, true // closing the descriptor releases the lock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			return nil, false
		}
		time.Sleep(time.Millisecond)
	}
}

const lockWait = time.Second
