//go:build unix

package main

import (
	"os"
	"syscall"
)

// maxRSS is the program's peak RSS in KB (rusage's ru_maxrss; bytes on
// darwin, where the bench's figures are not compared).
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return 0
}
