//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package cmd

import "os"

// holdTypeAhead does nothing where the terminal is not a termios one.
func holdTypeAhead(*os.File) (restore func()) { return func() {} }
