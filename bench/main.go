// Command bench runs the project's benchmarks outside `go test`.
//
//	go run ./bench tokens [--json] [--quick] [--catalog FILE] [--out FILE] [--catalogs DIR]
//	go run ./bench compact [--json] [--turns N] [--out FILE]
//	go run ./bench start [--json] [--sizes 282,1000,5000,10000] [--adapters a,b] [--modes deferred,no-budget,client,eager,tools] [--runs 3] [--npm DIR] [--out FILE]
//	go run ./bench telemetry [--json] [--runs 15] [--out FILE]
//	go run ./bench peers [--json] [--sizes 282] [--runs 5] [--claude BIN] [--codex BIN] [--dump DIR] [--out FILE]
//
// tokens measures what deferring tools saves on the real MCP catalogs in
// ../shared/catalogs (see bench/tokenbench). start runs the agent binary
// on catalogs of 282 to 10,000 tools and with the ten npm MCP servers (see
// bench/startbench).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agent-dev/agent/bench/tokenbench"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "start" {
		return runStart(args, stdout)
	}
	if len(args) > 0 && args[0] == "compact" {
		return runCompact(args, stdout)
	}
	if len(args) > 0 && args[0] == "telemetry" {
		return runTelemetry(args, stdout)
	}
	if len(args) > 0 && args[0] == "peers" {
		return runPeers(args, stdout)
	}
	if len(args) == 0 || args[0] != "tokens" {
		return fmt.Errorf("usage: go run ./bench tokens [--json] [--quick] [--catalog FILE] [--out FILE]\n       go run ./bench start [--json] [--sizes N,N] [--adapters A,B] [--runs N] [--npm DIR] [--out FILE]\n       go run ./bench compact [--json] [--turns N] [--out FILE]\n       go run ./bench telemetry [--json] [--runs N] [--out FILE]\n       go run ./bench peers [--json] [--sizes N,N] [--runs N] [--claude BIN] [--codex BIN] [--dump DIR] [--out FILE]")
	}
	fs := flag.NewFlagSet("tokens", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	quick := fs.Bool("quick", false, "skip the generated 2,000-tool catalog")
	catalog := fs.String("catalog", "", "run this one catalog file only")
	out := fs.String("out", "", "also write the report to this file")
	dir := fs.String("catalogs", "", "directory of catalogs (default ../shared/catalogs from the module root)")
	generated := fs.Int("generated", tokenbench.GeneratedSize, "size of the generated catalog")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	o := tokenbench.Options{Catalog: *catalog, CatalogDir: *dir, Generated: *generated}
	if *quick {
		o.Generated = 0
	}
	if o.CatalogDir == "" {
		root, err := moduleRoot()
		if err != nil {
			return err
		}
		o.CatalogDir = tokenbench.DefaultCatalogDir(root)
	}
	rep, err := tokenbench.Run(context.Background(), o)
	if err != nil {
		return err
	}
	rep.Command = "go run ./bench " + strings.Join(args, " ")
	return writeReport(stdout, rep, *asJSON, func(w io.Writer) error { return tokenbench.Markdown(w, rep) }, *out)
}

// moduleRoot walks up from the working directory to go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		if _, err := os.Stat(d + "/go.mod"); err == nil {
			return d, nil
		}
		parent := d[:max(0, strings.LastIndex(d, "/"))]
		if parent == "" || parent == d {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		d = parent
	}
}

// writeReport prints a bench's report, as JSON or through its Markdown
// writer, and also writes it to out when one is given.
func writeReport(stdout io.Writer, rep any, asJSON bool, markdown func(io.Writer) error, out string) error {
	var buf strings.Builder
	if asJSON {
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else if err := markdown(&buf); err != nil {
		return err
	}
	if _, err := io.WriteString(stdout, buf.String()); err != nil {
		return err
	}
	if out != "" {
		if err := os.WriteFile(out, []byte(buf.String()), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", out, err)
		}
	}
	return nil
}
