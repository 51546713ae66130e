// Command agent is an interactive terminal agent for people who wire a model
// to hundreds of tools: active tools are sent as usual, deferred tools stay
// out of the model's context until it searches for them.
package main

import (
	"context"
	"os"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/cmd"
	"github.com/agent-dev/agent/internal/gctune"
	"github.com/agent-dev/agent/internal/residency"
	"github.com/agent-dev/agent/internal/starttrace"

	// Imported for its init: --version answers before the heavy packages
	// initialise. The linker orders inits by import path, not by where an
	// import stands here (internal/early says why its path sorts first).
	_ "github.com/agent-dev/agent/internal/early"
)

func main() {
	starttrace.Mark("main (every package initialised)")
	// Beside the run, on the core init left idle, not before the command
	// line is read: together ~3-4 ms of the main thread's time at every
	// start (traced), spent before a first run could begin connecting its
	// MCP servers (app/earlymcp.go) and before a warm run opened its
	// database.
	go func() {
		// A run's heap is small: collect it less often (internal/gctune).
		// Set within a fraction of a millisecond; init's heap is below the
		// first collection's goal.
		gctune.Start(os.Getenv)
		// Every package's init has run: the binary's pages it touched
		// need not stay resident (internal/residency; reading
		// /proc/self/maps and the madvise of ~30 MB of mappings). A page
		// the run touches meanwhile comes back from the page cache, as
		// any it touches after. A failure leaves them resident, which
		// costs memory, not correctness.
		_, _ = residency.Release()
	}()
	app.ExitsAfterClose = true
	ctx, stop := app.SignalContext(context.Background())
	code := cmd.Execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	_ = starttrace.Write()
	os.Exit(code)
}
