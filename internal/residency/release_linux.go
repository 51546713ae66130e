package residency

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// Release drops the process's mappings of its own executable's read-only
// pages (text, read-only data, the function tables) with
// madvise(MADV_DONTNEED). Writable mappings are left alone: for a private
// mapping DONTNEED would reset written data to the file's contents. It
// returns the bytes of address space released; an error leaves the
// process as it was.
func Release() (int, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, err
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	released := 0
	for _, line := range bytes.Split(maps, []byte{'\n'}) {
		// start-end perms offset dev inode path
		f := bytes.Fields(line)
		if len(f) < 6 || string(f[5]) != exe || len(f[1]) < 4 || f[1][1] != '-' || f[1][3] != 'p' {
			continue
		}
		lo, hi, ok := bytes.Cut(f[0], []byte{'-'})
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED); e != 0 {
			return released, e
		}
		released += int(end - start)
	}
	return released, nil
}
