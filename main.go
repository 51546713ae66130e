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
	// Imported first for its init: --version answers before the heavy
	// packages initialise.
	_ "github.com/agent-dev/agent/internal/early"
)

func main() {
	// Every package's init has run: the binary's pages it touched need not
	// stay resident (internal/residency). A failure leaves them resident,
	// which costs memory, not correctness.
	starttrace.Mark("main (every package initialised)")
	_, _ = residency.Release()
	// A run's heap is small: collect it less often (internal/gctune).
	gctune.Start(os.Getenv)
	app.ExitsAfterClose = true
	ctx, stop := app.SignalContext(context.Background())
	code := cmd.Execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	_ = starttrace.Write()
	os.Exit(code)
}
