//go:build !unix

package mcp

import "os"

// runHardeningServer's modes stop the process with SIGSTOP; only the unix
// tests (hardening_test.go) start them. Elsewhere the test binary still
// has to build.
func runHardeningServer(string) { os.Exit(2) }
