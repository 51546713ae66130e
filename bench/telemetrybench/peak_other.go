//go:build !unix

package telemetrybench

import "os"

// peakMiB is not reported here.
func peakMiB(*os.ProcessState) float64 { return 0 }
