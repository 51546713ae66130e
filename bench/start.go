package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agent-dev/agent/bench/startbench"
)

// runStart builds the agent binary and runs bench/startbench.
func runStart(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("start", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	sizes := fs.String("sizes", "282,1000,5000,10000", "catalog sizes (none: only the npm servers)")
	adapters := fs.String("adapters", strings.Join(startbench.Adapters, ","), "adapters")
	runs := fs.Int("runs", 3, "measured runs per cell (after one that fills the cache)")
	npm := fs.String("npm", "", "node_modules/.bin of the npm MCP servers (default .ci/node_modules/mcp/node_modules/.bin when present; \"none\" skips)")
	catalog := fs.String("catalog", "", "ALL.json (default ../shared/catalogs/ALL.json)")
	out := fs.String("out", "", "also write the report to this file")
	quiet := fs.Bool("quiet", false, "no progress lines on stderr")
	modes := fs.String("modes", "", "only these rows of each size: deferred, no-budget, client, eager, tools (default all)")
	smaps := fs.String("smaps", "", "write each catalog run's /proc/PID/smaps at its peak into this directory")
	trace := fs.String("trace", "", "write each catalog run's timeline (AGENT_TRACE_START: ms from exec per step) into this directory")
	agentBin := fs.String("agent", "", "measure this agent binary instead of building the module's (another commit's release build, to compare)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	o := startbench.Options{Catalog: *catalog, Runs: *runs, Progress: os.Stderr, Smaps: *smaps, Trace: *trace}
	if *quiet {
		o.Progress = io.Discard
	}
	if o.Catalog == "" {
		o.Catalog = filepath.Join(root, "..", "shared", "catalogs", "ALL.json")
	}
	for _, s := range strings.Split(*sizes, ",") {
		if s == "none" {
			o.Sizes = []int{0}
			break
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("--sizes: %w", err)
		}
		o.Sizes = append(o.Sizes, n)
	}
	o.Adapters = strings.Split(*adapters, ",")
	if *modes != "" {
		for _, m := range strings.Split(*modes, ",") {
			m = strings.TrimSpace(m)
			if _, ok := startbench.ModeKeys[m]; !ok {
				return fmt.Errorf("--modes: unknown mode %q (use deferred, no-budget, client, eager or tools)", m)
			}
			o.Modes = append(o.Modes, m)
		}
	}
	switch *npm {
	case "none":
	case "":
		if d := filepath.Join(root, ".ci", "node_modules", "mcp", "node_modules", ".bin"); dirExists(d) {
			o.NodeBin = d
		}
	default:
		o.NodeBin = *npm
	}
	var done func()
	if o.Agent, done, err = buildRelease(root); err != nil {
		return err
	}
	defer done()
	if *agentBin != "" {
		// Installed as the module's build is (install): read from the
		// page cache the way the runs of the built one are, else its
		// file-backed pages would depend on how it was last written.
		b, err := os.ReadFile(*agentBin)
		if err == nil {
			tmp := filepath.Join(filepath.Dir(o.Agent), "agent.given")
			if err = os.WriteFile(tmp, b, 0o755); err == nil {
				err = install(tmp, o.Agent)
			}
		}
		if err != nil {
			return fmt.Errorf("--agent: %w", err)
		}
	}
	rep, err := startbench.Run(context.Background(), o)
	if err != nil {
		return err
	}
	rep.Command = "go run ./bench " + strings.Join(args, " ")
	return writeReport(stdout, rep, *asJSON, func(w io.Writer) error { return startbench.Markdown(w, rep) }, *out)
}

// buildRelease builds the agent of the module at root into a temporary
// directory as .goreleaser.yaml builds a release (what users download: cgo
// off, -trimpath, symbols stripped, a version through ldflags, so that
// --version answers before the heavy packages initialise), and the
// wrapper the bench runs it under; done removes them.
func buildRelease(root string) (bin string, done func(), err error) {
	dir, err := os.MkdirTemp("", "bench-bin-")
	if err != nil {
		return "", nil, err
	}
	bin = filepath.Join(dir, "agent")
	built := filepath.Join(dir, "agent.build")
	err = buildAgent(root, built, "-trimpath", "-ldflags", "-s -w -X github.com/agent-dev/agent/internal/early.Version=bench")
	if err == nil {
		err = install(built, bin)
	}
	if err == nil {
		err = startbench.BuildWrapper(context.Background(), dir)
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// install copies the binary at from to to, removes from, and drops the
// copy from the page cache, so that the runs read it as a binary is read
// once its installation has left memory: through the faults of its
// executions. How the file came into the page cache changes how much of
// it a run has resident: Linux maps a whole large folio of the page cache
// on a fault, and the linker's output (written through a mapping) or a
// copy written in large writes (an installer writing the file at once) is
// held in larger folios than the faults' readahead makes. The same
// binary's -p turn at 282 tools had 19 MB of its file resident read this
// way, 25 MB run from the linker's output, 31 MB right after a copy in
// 1 MB writes.
func install(from, to string) error {
	src, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.WriteFile(to, src, 0o755); err != nil {
		return err
	}
	f, err := os.Open(to)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return err
	}
	if err := dropCache(f); err != nil {
		return fmt.Errorf("drop the agent binary from the page cache: %w", err)
	}
	return os.Remove(from)
}

// buildAgent builds the agent of the module at root into out, with the
// extra go build flags given, cgo off as in a release.
func buildAgent(root, out string, flags ...string) error {
	args := append(append([]string{"build"}, flags...), "-o", out, ".")
	build := exec.CommandContext(context.Background(), "go", args...)
	build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if err := build.Run(); err != nil {
		return fmt.Errorf("build the agent: %w", err)
	}
	return nil
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
