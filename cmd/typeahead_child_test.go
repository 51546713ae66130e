package cmd

import (
	"fmt"
	"io"
	"os"
)

// holdTypeAheadChild is the process of TestCtrlCWhileStartingLeavesTheTerminalAsItWas:
// it holds the type-ahead of its stdin (a pty) and waits to be interrupted.
// It waits by reading its terminal, to which the test writes nothing: the
// read ends only when the test's end of the pty closes (the test is gone),
// and then so does the child.
func holdTypeAheadChild() {
	holdTypeAhead(os.Stdin)
	fmt.Println("held")
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(3)
}
