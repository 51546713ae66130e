package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/sanitize"
)

// PrintResult is the -p --output-format json object.
type PrintResult = app.TurnResult

// stdinGrace is how long -p with a prompt waits for piped stdin to start.
const stdinGrace = 2 * time.Second

// readStdin reads stdin when it is not a terminal. With a prompt given, a
// pipe that sends nothing (and does not close) within stdinGrace is left
// alone: it is an inherited descriptor nobody writes to (a CI runner, an
// editor), not input, and waiting for its end would hang the run. Files
// are read whole; without a prompt, stdin is the prompt and is waited for.
func readStdin(f *os.File, havePrompt bool) ([]byte, error) {
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice != 0 {
		return nil, nil
	}
	if !havePrompt || st.Mode().IsRegular() {
		return io.ReadAll(f)
	}
	type chunk struct {
		b   []byte
		err error
	}
	first := make(chan chunk, 1)
	go func() {
		buf := make([]byte, 64<<10)
		n, err := f.Read(buf)
		first <- chunk{buf[:n], err}
	}()
	var c chunk
	select {
	case c = <-first:
	case <-time.After(stdinGrace):
		return nil, nil
	}
	if c.err != nil {
		if errors.Is(c.err, io.EOF) {
			return c.b, nil
		}
		return nil, c.err
	}
	rest, err := io.ReadAll(f)
	return append(c.b, rest...), err
}

func readPrompt(g *Globals) (string, error) {
	prompt := g.Prompt
	if f, ok := g.Stdin.(*os.File); ok {
		b, err := readStdin(f, strings.TrimSpace(prompt) != "")
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
	a, err := app.Open(ctx, g.Settings, app.Options{Getenv: g.Getenv, Version: versionString(), Title: g.Prompt})
	if err != nil {
		return err
	}
	defer a.Close()
	for _, w := range a.Warnings() {
		fmt.Fprintln(g.Stderr, "agent: warning: "+sanitize.Line(w))
	}
	red := a.NewReducer()
	// Text mode prints the model's words, which may echo a tool result:
	// escape sequences in them never reach the terminal.
	out := sanitize.NewWriter(g.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(g.Stdout)
	if g.OutputFormat == "stream-json" {
		p, model := a.Session().Target()
		_ = enc.Encode(map[string]any{"type": "init", "session_id": a.Session().ID, "provider": p.Name(), "model": model})
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
