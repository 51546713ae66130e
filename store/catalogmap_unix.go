//go:build unix

package store

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of f privately: readable, and writable without
// the writes reaching the file (a caller that edits a slice of the list
// in place gets a copy of that page, not a crash or a changed cache). The
// mapping is never unmapped: the list's strings point into it for the
// rest of the run.
func mapFile(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
}
