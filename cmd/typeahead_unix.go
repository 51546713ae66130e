//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package cmd

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// holdTypeAhead keeps what is typed while the TUI starts (the trust
// question's files read, the database opened, SessionStart hooks run)
// for the TUI: until the TUI takes the terminal, it is in the shell's
// cooked mode, which echoed the keys onto the screen above the first
// frame and turned enter into a newline (ICRNL), so a prompt typed then
// was not sent but left in the input over two lines. Echo and the CR
// translation are turned off until the returned func (once; again does
// nothing) puts the terminal back as it was, just before the TUI takes it:
// the keys stay in the terminal's buffer for the TUI to read. Nothing is
// done when in is not a terminal.
func holdTypeAhead(in *os.File) (restore func()) {
	fd := int(in.Fd())
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return func() {}
	}
	t := *old
	t.Lflag &^= unix.ECHO
	t.Iflag &^= unix.ICRNL
	if unix.IoctlSetTermios(fd, ioctlSetTermios, &t) != nil {
		return func() {}
	}
	var once sync.Once
	return func() { once.Do(func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, old) }) }
}
