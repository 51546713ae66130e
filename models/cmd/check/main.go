// Command check lists every figure of the capability table (package
// models) without a source comment, and exits 1 when there is one:
//
//	go run ./models/cmd/check
package main

import (
	"fmt"
	"os"

	"github.com/agent-dev/agent/models/internal/sourcecheck"
)

func main() {
	dir := "models"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	figs, err := sourcecheck.Unsourced(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "check:", err)
		os.Exit(2)
	}
	for _, f := range figs {
		fmt.Println(f)
	}
	if len(figs) > 0 {
		fmt.Fprintf(os.Stderr, "%d figures without a source: add a \"src:\" comment naming where each was read\n", len(figs))
		os.Exit(1)
	}
	fmt.Println("every figure has a source")
}
