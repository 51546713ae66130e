//go:build unix

package store

import (
	"os"
	"syscall"
)

// mapFile maps bytes [off, off+size) of f privately: readable, and
// writable without the writes reaching the file (a caller that edits a
// slice of the list in place gets a copy of that page, not a crash or a
// changed cache). The mapping starts at the page off is in (mmap's offset
// is a multiple of the page size); the slice returned starts at off and
// has no room beyond the list. It is never unmapped: the list's strings
// point into it for the rest of the run.
func mapFile(f *os.File, off, size int) ([]byte, error) {
	start := off &^ (os.Getpagesize() - 1)
	m, err := syscall.Mmap(int(f.Fd()), int64(start), off-start+size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	return m[off-start : off-start+size : off-start+size], nil
}
