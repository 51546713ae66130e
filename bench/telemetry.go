package main

import (
	"context"
	"flag"
	"io"
	"os"
	"strings"

	"github.com/agent-dev/agent/bench/telemetrybench"
)

// runTelemetry builds the agent binary and runs bench/telemetrybench.
func runTelemetry(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("telemetry", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	runs := fs.Int("runs", 15, "measured runs per cell (after one warm-up round)")
	out := fs.String("out", "", "also write the report to this file")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	bin, done, err := buildRelease(root)
	if err != nil {
		return err
	}
	defer done()
	rep, err := telemetrybench.Run(context.Background(), telemetrybench.Options{Agent: bin, Runs: *runs, Progress: os.Stderr})
	if err != nil {
		return err
	}
	rep.Command = "go run ./bench " + strings.Join(args, " ")
	return writeReport(stdout, rep, *asJSON, func(w io.Writer) error { return telemetrybench.Markdown(w, rep) }, *out)
}
