//go:build !unix

package main

import "os"

// maxRSS is 0 where there is no rusage (Windows): the bench reads peaks
// from /proc (bench/internal/proc) and runs on Linux; this only keeps
// go build ./... building for every GOOS the agent is released for.
func maxRSS(*os.ProcessState) int64 { return 0 }
