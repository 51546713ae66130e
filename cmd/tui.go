package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/app/tuiapp"
	"github.com/agent-dev/agent/demo"
	"github.com/agent-dev/agent/providers/registry"
	"github.com/agent-dev/agent/tui"
)

func runTUI(ctx context.Context, g *Globals) error {
	// Checked before any server starts or any session is created.
	if f, ok := g.Stdout.(*os.File); !ok || !isTerminal(f) {
		return usagef("the terminal UI needs a terminal on stdout: run agent in one, or use -p PROMPT to print one answer")
	}
	release := func() {}
	if f, ok := g.Stdin.(*os.File); ok && isTerminal(f) {
		release = holdTypeAhead(f)
		defer release()
	}
	var typed tui.TypeAhead
	if !g.Settings.Demo {
		s, ta, err := tuiapp.AskTrust(ctx, g.Settings, g.Getenv, tui.Options{Theme: g.Settings.Theme, NoColor: os.Getenv("NO_COLOR") != ""})
		if err != nil {
			return err
		}
		g.Settings, typed = s, ta
	}
	pick := g.Settings.Resume == app.PickSession
	if pick {
		g.Settings.Resume = ""
	}
	a, err := app.Open(ctx, g.Settings, app.Options{Getenv: g.Getenv, Version: versionString(), Title: g.Prompt, Interactive: true})
	if mk := (*registry.MissingKeyError)(nil); pick && errors.As(err, &mk) {
		// The picker opens on the configured provider, so it needs its
		// key; a session named by ID opens on its own provider (one of
		// agent --demo resumes with no key), which a user who tried the
		// demo and then agent --resume could not have guessed.
		return fmt.Errorf("%w; a session named by ID resumes with its own provider: agent --resume ID (agent sessions lists them)", err)
	}
	if err != nil {
		return err
	}
	defer a.Close()
	b := tuiapp.New(a)
	opts := tui.Options{Theme: a.Settings().Theme, NoColor: os.Getenv("NO_COLOR") != ""}
	if a.Resumed() {
		opts.History = a.Session().Messages()
	}
	if a.Settings().Demo {
		opts.Suggestions = demo.Prompts
	}
	// Startup warnings go to the chat once, not to the status bar.
	opts.Warnings = a.Warnings()
	for _, n := range a.NewNotices() {
		if n.Warning {
			opts.Warnings = append(opts.Warnings, n.Text)
		} else {
			opts.News = append(opts.News, n.Text)
		}
	}
	if w := pipedStdinWarning(g.Stdin); w != "" {
		opts.Warnings = append(opts.Warnings, w)
	}
	opts.AltScreen, opts.PickSession, opts.TypeAhead = g.AltScreen, pick, typed
	opts.Alerts = a.Alerts()
	// The TUI keeps the terminal as it finds it for what it runs ($EDITOR)
	// and leaves it so: as the shell had it, the keys typed meanwhile kept
	// in its buffer.
	release()
	err = tui.Run(ctx, b, opts)
	if id := a.Leave(); id != "" {
		fmt.Fprintf(g.Stderr, "Session %s saved; resume it with: %s\n", id, app.ResumeCommand(a.Settings(), id))
	}
	return err
}

// pipedStdinWarning says that text piped to the terminal UI is not read:
// "echo QUESTION | agent" opened the TUI (it reads keys from the
// terminal) and dropped the question without a word; -p reads it.
func pipedStdinWarning(stdin io.Reader) string {
	f, ok := stdin.(*os.File)
	if !ok {
		return ""
	}
	fi, err := f.Stat()
	if err != nil || (fi.Mode()&os.ModeNamedPipe == 0 && !fi.Mode().IsRegular()) {
		return ""
	}
	return "standard input is piped or redirected: the terminal UI does not read it; to send that text, run agent -p PROMPT with it piped"
}

// termWidth is the width of the terminal w is, or 0 when w is not one
// (piped or redirected: tables keep every field whole for scripts).
func termWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return 0
	}
	width, _, err := term.GetSize(f.Fd())
	if err != nil || width <= 0 {
		return 0
	}
	return width
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
