//go:build unix

package bench

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user + system) the process has used so far. On a
// shared machine it says more about cost than wall time does.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
