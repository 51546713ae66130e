package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agent-dev/agent/bench/peerbench"
)

// runPeers builds the agent binary and pairs its -p turn with the peers'
// (bench/peerbench); bench/peers.sh installs the peers and runs it.
func runPeers(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	sizes := fs.String("sizes", "282", "catalog sizes")
	runs := fs.Int("runs", 5, "measured pairs per cell (after one unmeasured pair)")
	claude := fs.String("claude", "", "Claude Code's binary (empty: skipped)")
	codex := fs.String("codex", "", "Codex CLI's binary (empty: skipped)")
	catalog := fs.String("catalog", "", "ALL.json (default ../shared/catalogs/ALL.json)")
	dump := fs.String("dump", "", "keep each run's request bodies and output in this directory")
	out := fs.String("out", "", "also write the report to this file")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	o := peerbench.Options{Claude: *claude, Codex: *codex, Catalog: *catalog, Runs: *runs, Dump: *dump, Progress: os.Stderr}
	if o.Catalog == "" {
		o.Catalog = filepath.Join(root, "..", "shared", "catalogs", "ALL.json")
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("--sizes: %w", err)
		}
		o.Sizes = append(o.Sizes, n)
	}
	var done func()
	if o.Agent, done, err = buildRelease(root); err != nil {
		return err
	}
	defer done()
	rep, err := peerbench.Run(context.Background(), o)
	if err != nil {
		return err
	}
	rep.Command = "go run ./bench " + strings.Join(args, " ")
	return writeReport(stdout, rep, *asJSON, func(w io.Writer) error { return peerbench.Markdown(w, rep) }, *out)
}
