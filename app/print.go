package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/internal/starttrace"
	"github.com/agent-dev/agent/sanitize"
)

// ReadPrompt is print mode's prompt: the one given, with piped stdin
// appended (ReadStdin). An empty prompt is a usage error.
func ReadPrompt(prompt string, stdin io.Reader) (string, error) {
	if f, ok := stdin.(*os.File); ok {
		b, err := ReadStdin(f, strings.TrimSpace(prompt) != "")
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
		return "", Usagef("empty prompt: give one with -p \"...\" or pipe it on stdin")
	}
	return prompt, nil
}

// PrintOptions are print mode's output choices.
type PrintOptions struct {
	// Format is text (the answer as it streams), json (the TurnResult at
	// the end) or stream-json (an init line, every event, the result).
	Format string
	// Yes approves every call that needs approval; without it such a
	// call is denied, saying so on Stderr.
	Yes bool
	// Images are attached to the prompt (--image).
	Images         []agent.Image
	Stdout, Stderr io.Writer
	// UICommand, when set, says whether a name ("/help") is a command of
	// the interactive UI and what does its work outside it ("" when
	// nothing does): -p refuses such a command saying that, not that no
	// custom command has its name. The UI's commands live with the UI,
	// which app does not import.
	UICommand func(name string) (instead string, ok bool)
}

// Print runs prompt as one turn of print mode (-p) and writes it as
// o.Format says; warnings, compactions and denials go to o.Stderr. It
// returns the turn's error, of a kind ExitCode maps.
func (a *App) Print(ctx context.Context, prompt string, o PrintOptions) error {
	for _, w := range a.Warnings() {
		fmt.Fprintln(o.Stderr, "agent: warning: "+sanitize.Line(w))
	}
	for _, m := range a.startNews {
		// A SessionStart hook's systemMessage: no warning, as a turn's
		// hook's is printed (below).
		fmt.Fprintln(o.Stderr, "agent: "+sanitize.Line(m))
	}
	if err := a.CheckCommand(prompt); err != nil {
		var uc *UnknownCommandError
		if errors.As(err, &uc) && o.UICommand != nil {
			uc.Instead, uc.Interactive = o.UICommand("/" + uc.Name)
		}
		return err
	}
	red := a.NewReducer()
	// Text mode prints the model's words, which may echo a tool result:
	// escape sequences in them never reach the terminal.
	out := sanitize.NewWriter(o.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(o.Stdout)
	if o.Format == "stream-json" {
		p, _ := a.session.Target()
		// As the result names it: as the user named it ("ollama", not
		// its adapter's "openai-chat").
		provider, model := a.turnTarget(prompt)
		if provider == "" {
			provider = a.Provider()
		}
		if provider == "" {
			provider = p.Name()
		}
		_ = enc.Encode(map[string]any{"type": "init", "session_id": a.session.ID(), "provider": provider, "model": model})
	}
	var events <-chan agent.Event
	if err := a.MissingServerIn(prompt); err != nil {
		// Nothing is sent; the turn ends with the error, so the result
		// (and stream-json's events) say it as any failed turn's do.
		events = agent.Stream(ctx, func(emit func(agent.Event)) {
			emit(agent.Event{Type: agent.EventError, Err: err})
			emit(agent.Event{Type: agent.EventDone})
		})
	} else {
		events = a.SendInput(ctx, agent.Input{Text: prompt, Images: o.Images})
	}
	for ev := range events {
		if o.Format == "stream-json" {
			_ = enc.Encode(ev)
		}
		text := red.Add(ev)
		switch {
		case text != "" && o.Format == "text":
			fmt.Fprint(out, text)
		case ev.Type == agent.EventWarning, ev.Type == agent.EventElicitation, ev.Type == agent.EventNotice:
			// A turn's notice is a hook's systemMessage (sessionHooks.say).
			fmt.Fprintln(o.Stderr, "agent: "+sanitize.Line(ev.Text))
		case ev.Type == agent.EventCompacted && ev.Compaction != nil:
			fmt.Fprintln(o.Stderr, "agent: compacted: "+CompactionLine(*ev.Compaction))
		case ev.Type == agent.EventApproval:
			if !o.Yes {
				fmt.Fprintf(o.Stderr, "agent: denied %s: it needs approval; rerun with --yes to allow it\n", sanitize.Line(ev.Tool.Name))
			}
			a.Unattended(ev.Tool.ID, ev.Tool.Name, o.Yes)
		}
	}
	starttrace.Mark("turn events ended")
	res := red.Result(a)
	if res.IsError && a.DropUnanswered() {
		res.SessionID = ""
	}
	runErr := red.Err()
	if err := a.NamedFailed(); err != nil && runErr == nil {
		res.IsError, res.Error, runErr = true, err.Error(), err
	}
	switch o.Format {
	case "text":
		if all := red.Text(); all != "" && !strings.HasSuffix(all, "\n") {
			fmt.Fprintln(out)
		}
	case "json":
		e := json.NewEncoder(o.Stdout)
		e.SetIndent("", "  ")
		_ = e.Encode(res)
	case "stream-json":
		res.Type = "result"
		_ = enc.Encode(res)
	}
	starttrace.Mark("result printed")
	return runErr
}
