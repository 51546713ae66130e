package main

import (
	"context"
	"flag"
	"io"
	"strings"

	"github.com/agent-dev/agent/bench/compactbench"
)

// runCompact is `go run ./bench compact`: the 200-turn session with 20
// discoveries, with and without auto-compaction (see bench/compactbench).
func runCompact(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("compact", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the report as JSON (with the context of every request)")
	out := fs.String("out", "", "also write the report to this file")
	turns := fs.Int("turns", compactbench.Turns, "turns of the session")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	rep, err := compactbench.Run(context.Background(), compactbench.Options{Turns: *turns})
	if err != nil {
		return err
	}
	rep.Command = "go run ./bench " + strings.Join(args, " ")
	return writeReport(stdout, rep, *asJSON, func(w io.Writer) error { return compactbench.Markdown(w, rep) }, *out)
}
