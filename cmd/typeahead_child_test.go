package cmd

import (
	"fmt"
	"os"
	"time"
)

// holdTypeAheadChild is the process of TestCtrlCWhileStartingLeavesTheTerminalAsItWas:
// it holds the type-ahead of its stdin (a pty) and waits to be interrupted.
func holdTypeAheadChild() {
	holdTypeAhead(os.Stdin)
	fmt.Println("held")
	time.Sleep(30 * time.Second)
	os.Exit(3)
}
