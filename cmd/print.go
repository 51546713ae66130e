package cmd

import (
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"time"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/internal/starttrace"
	"github.com/agent-dev/agent/tui"
)

// PrintResult is the -p --output-format json object.
type PrintResult = app.TurnResult

func runPrint(ctx context.Context, g *Globals) error {
	prompt, err := app.ReadPrompt(g.Prompt, g.Stdin)
	if err != nil {
		return err
	}
	images, err := app.ReadImages(g.Images)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	if g.Settings.Resume == app.PickSession {
		return usagef("-p cannot pick a session: name one with --resume ID (agent sessions lists them) or use --continue")
	}
	a, err := app.Open(ctx, g.Settings, app.Options{Getenv: g.Getenv, Version: versionString(), Title: g.Prompt, SignIn: g.Stderr, Yes: g.Yes})
	if err != nil {
		return err
	}
	starttrace.Mark("app open")
	defer func() { starttrace.Mark("close begin"); a.Close(); starttrace.Mark("closed") }()
	// Print writes the result whatever happens, also when it fails.
	g.resultPrinted = true
	return a.Print(ctx, prompt, app.PrintOptions{Format: g.OutputFormat, Yes: g.Yes, Images: images, Stdout: g.Stdout, Stderr: g.Stderr,
		UICommand: tui.BuiltinCommand})
}

// printFailed writes the JSON result of a -p run that failed before its
// turn (exit 1: its stdin could not be read, its settings could not be
// loaded, a named server did not start, the store did not open): the
// README promises the JSON on a runtime error, with the same fields.
// Execute calls it for every error of a -p run whose result was not
// printed. A usage error (exit 2) before the run is a mistake in the
// command line, said on stderr only.
func printFailed(g *Globals, err error) {
	if !g.PromptSet || g.resultPrinted || app.ExitCode(err) != 1 {
		return
	}
	res := app.FailedResult(g.Settings, err)
	// The run's wall time, as a turn's result has it: it was 0, as if a
	// run that waited seconds for a server that then failed took none.
	res.DurationMS = time.Since(g.start).Milliseconds()
	enc := json.NewEncoder(g.Stdout)
	switch g.OutputFormat {
	case "json":
		enc.SetIndent("", "  ")
	case "stream-json":
		res.Type = "result"
	default:
		return
	}
	_ = enc.Encode(res)
}
