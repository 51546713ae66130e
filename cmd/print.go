package cmd

import (
	"context"
	"os"
	"os/signal"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/internal/starttrace"
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
	return a.Print(ctx, prompt, app.PrintOptions{Format: g.OutputFormat, Yes: g.Yes, Images: images, Stdout: g.Stdout, Stderr: g.Stderr})
}
