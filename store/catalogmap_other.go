//go:build !unix

package store

import (
	"io"
	"os"
)

// mapFile reads bytes [off, off+size) of f where there is no mmap.
func mapFile(f *os.File, off, size int) ([]byte, error) {
	b := make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(f, int64(off), int64(size)), b); err != nil {
		return nil, err
	}
	return b, nil
}
