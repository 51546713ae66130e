//go:build unix

package telemetrybench

import (
	"os"
	"runtime"
	"syscall"
)

// peakMiB is a finished process's peak RSS: ru_maxrss, in KiB on Linux and
// in bytes on macOS.
func peakMiB(ps *os.ProcessState) float64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return float64(ru.Maxrss) / (1 << 20)
	}
	return float64(ru.Maxrss) / 1024
}
