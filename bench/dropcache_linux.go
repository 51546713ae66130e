package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// dropCache drops f's pages from the page cache (see install).
func dropCache(f *os.File) error {
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
