//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package cmd

import (
	"os"
	"os/signal"
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
//
// ctrl+c meanwhile still ends agent, as it did before the hold (the
// terminal is cooked, so it is a SIGINT, which the TUI path does not
// catch): but the default action would leave the shell a terminal that
// echoes nothing. So while the hold lasts, a SIGINT puts the terminal
// back first, then ends the process by the same signal, as the shell
// expects of a program interrupted.
func holdTypeAhead(in *os.File) (restore func()) {
	fd := int(in.Fd())
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return func() {}
	}
	t := *old
	t.Lflag &^= unix.ECHO
	t.Iflag &^= unix.ICRNL
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	if unix.IoctlSetTermios(fd, ioctlSetTermios, &t) != nil {
		signal.Stop(sig)
		return func() {}
	}
	put := func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, old) }
	done := make(chan struct{})
	var once sync.Once
	go func() {
		select {
		case <-sig:
			once.Do(put)
			signal.Reset(os.Interrupt)
			_ = unix.Kill(os.Getpid(), unix.SIGINT)
		case <-done:
		}
	}()
	return func() {
		once.Do(func() {
			signal.Stop(sig)
			close(done)
			put()
		})
	}
}
