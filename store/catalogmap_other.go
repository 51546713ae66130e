//go:build !unix

package store

import (
	"io"
	"os"
)

// mapFile reads size bytes of f where there is no mmap.
func mapFile(f *os.File, size int) ([]byte, error) {
	b := make([]byte, size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, err
	}
	return b, nil
}
