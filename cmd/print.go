package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/sanitize"
)

// PrintResult is the -p --output-format json object.
type PrintResult = app.TurnResult

func readPrompt(g *Globals) (string, error) {
	prompt := g.Prompt
	if f, ok := g.Stdin.(*os.File); ok {
		b, err := app.ReadStdin(f, strings.TrimSpace(prompt) != "")
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		if s := strings.TrimSpace(string(b)); s != "" {
			if prompt != "" {
				prompt += "\n\n"
			}
			prompt += s
		}
	}
	if strings.TrimSpace(prompt) == "" {
		return "", usagef("empty prompt: give one with -p \"...\" or pipe it on stdin")
	}
	return prompt, nil
}

func runPrint(ctx context.Context, g *Globals) error {
	prompt, err := readPrompt(g)
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
	defer a.Close()
	for _, w := range a.Warnings() {
		fmt.Fprintln(g.Stderr, "agent: warning: "+sanitize.Line(w))
	}
	if err := a.MissingServerIn(prompt); err != nil {
		return err
	}
	red := a.NewReducer()
	// Text mode prints the model's words, which may echo a tool result:
	// escape sequences in them never reach the terminal.
	out := sanitize.NewWriter(g.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(g.Stdout)
	if g.OutputFormat == "stream-json" {
		p, model := a.Session().Target()
		_ = enc.Encode(map[string]any{"type": "init", "session_id": a.Session().ID(), "provider": p.Name(), "model": model})
	}
	for ev := range a.Send(ctx, prompt) {
		if g.OutputFormat == "stream-json" {
			_ = enc.Encode(ev)
		}
		text := red.Add(ev)
		switch {
		case text != "" && g.OutputFormat == "text":
			fmt.Fprint(out, text)
		case ev.Type == agent.EventWarning:
			fmt.Fprintln(g.Stderr, "agent: "+sanitize.Line(ev.Text))
		case ev.Type == agent.EventCompacted && ev.Compaction != nil:
			fmt.Fprintln(g.Stderr, "agent: compacted: "+app.CompactionLine(*ev.Compaction))
		case ev.Type == agent.EventApproval:
			// Allowed only with --yes.
			if !g.Yes {
				fmt.Fprintf(g.Stderr, "agent: denied %s: it needs approval; rerun with --yes to allow it\n", sanitize.Line(ev.Tool.Name))
			}
			a.Answer(ev.Tool.ID, g.Yes)
		}
	}
	res := red.Result(a)
	if res.IsError && a.DropUnanswered() {
		res.SessionID = ""
	}
	runErr := red.Err()
	if err := a.NamedFailed(); err != nil && runErr == nil {
		res.IsError, res.Error, runErr = true, err.Error(), err
	}
	switch g.OutputFormat {
	case "text":
		if all := red.Text(); all != "" && !strings.HasSuffix(all, "\n") {
			fmt.Fprintln(out)
		}
	case "json":
		e := json.NewEncoder(g.Stdout)
		e.SetIndent("", "  ")
		_ = e.Encode(res)
	case "stream-json":
		res.Type = "result"
		_ = enc.Encode(res)
	}
	return runErr
}
