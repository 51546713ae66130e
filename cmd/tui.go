package cmd

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/demo"
	"github.com/agent-dev/agent/pricing"
	"github.com/agent-dev/agent/themes"
	"github.com/agent-dev/agent/tui"
)

func runTUI(ctx context.Context, g *Globals) error {
	// Checked before any server starts or any session is created.
	if f, ok := g.Stdout.(*os.File); !ok || !isTerminal(f) {
		return usagef("the terminal UI needs a terminal on stdout: run agent in one, or use -p PROMPT to print one answer")
	}
	if _, err := themes.Get(g.Settings.Theme); err != nil {
		return &UsageError{Err: err}
	}
	a, err := app.Open(ctx, g.Settings, app.Options{Getenv: g.Getenv, Version: versionString(), Title: g.Prompt, Interactive: true})
	if err != nil {
		return err
	}
	defer a.Close()
	b := &tuiBackend{a: a, approvals: make(chan tui.ApprovalRequest), always: map[string]bool{}}
	opts := tui.Options{Theme: a.Settings().Theme, NoColor: os.Getenv("NO_COLOR") != ""}
	if a.Resumed() {
		opts.History = a.Session().Messages()
	}
	if a.Settings().Demo {
		opts.Suggestions = demo.Prompts
	}
	// Startup warnings go to the chat once, not to the status bar.
	opts.Warnings = append(a.Warnings(), a.NewNotices()...)
	opts.AltScreen = g.AltScreen
	opts.Alerts = a.Alerts()
	err = tui.Run(ctx, b, opts)
	if id := a.Leave(); id != "" {
		fmt.Fprintf(g.Stderr, "Session %s saved; resume it with: %s\n", id, resumeCommand(g, id))
	}
	return err
}

// resumeCommand is the command line that comes back to a session: the
// flags that say where its servers and database are, which the session
// itself cannot store (a config file path may differ per shell).
func resumeCommand(g *Globals, id string) string {
	args := []string{"agent", "--resume", id}
	if g.DBPath != "" {
		args = append(args, "--db", shellQuote(g.DBPath))
	}
	if g.MCPConfig != "" {
		args = append(args, "--mcp-config", shellQuote(g.MCPConfig))
	}
	for _, m := range g.MCP {
		args = append(args, "--mcp", shellQuote(m))
	}
	switch g.Defer {
	case "", "false":
	case "true":
		args = append(args, "--defer")
	default:
		args = append(args, "--defer="+g.Defer)
	}
	return strings.Join(args, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '=' || r == ',' || r == '@' || r == '+' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// tuiBackend is the TUI's view of the app: it turns approval events into
// the TUI's approval requests and remembers "always" answers.
type tuiBackend struct {
	a         *app.App
	approvals chan tui.ApprovalRequest

	mu     sync.Mutex
	always map[string]bool
	// turning is set while a turn runs: the tool set stays as it is.
	turning bool
}

var (
	_ tui.Backend        = (*tuiBackend)(nil)
	_ tui.Refresher      = (*tuiBackend)(nil)
	_ tui.ModelLister    = (*tuiBackend)(nil)
	_ tui.SessionDeleter = (*tuiBackend)(nil)
)

func (b *tuiBackend) Send(ctx context.Context, text string) <-chan agent.Event {
	b.setTurning(true)
	in := b.a.Send(ctx, text)
	// What MCP servers reported since the last turn (and tool list
	// changes, which take effect now) is said in the chat.
	notes := b.a.NewNotices()
	return agent.Stream(ctx, func(emit func(agent.Event)) {
		for _, n := range notes {
			emit(agent.Event{Type: agent.EventWarning, Text: n})
		}
		for ev := range in {
			if ev.Type == agent.EventApproval {
				go b.ask(ctx, *ev.Tool)
			}
			emit(ev)
		}
		b.setTurning(false)
	})
}

func (b *tuiBackend) setTurning(on bool) {
	b.mu.Lock()
	b.turning = on
	b.mu.Unlock()
}

// Refresh runs between turns: servers that came up since are added, and
// what they reported is said.
func (b *tuiBackend) Refresh() []string {
	b.mu.Lock()
	turning := b.turning
	b.mu.Unlock()
	if turning {
		return nil
	}
	var notes []string
	if changed := b.a.SyncTools(); len(changed) > 0 {
		notes = append(notes, "tools of "+strings.Join(changed, ", ")+" are ready")
	}
	return append(notes, b.a.NewNotices()...)
}

// Models lists what /model offers.
func (b *tuiBackend) Models(ctx context.Context) ([]tui.ModelInfo, error) {
	var out []tui.ModelInfo
	for _, m := range b.a.ListModels(ctx) {
		out = append(out, tui.ModelInfo{Name: m.Name, Detail: m.Detail})
	}
	return out, nil
}

// Delete removes a stored session; the current one cannot be.
func (b *tuiBackend) Delete(ctx context.Context, id string) error { return b.a.Delete(ctx, id) }

// ask puts one approval to the user, unless they allowed the tool always.
func (b *tuiBackend) ask(ctx context.Context, call agent.ToolEvent) {
	b.mu.Lock()
	ok := b.always[call.Name]
	b.mu.Unlock()
	if ok {
		b.a.Answer(call.ID, true)
		return
	}
	req := tui.ApprovalRequest{Tool: call, Reply: func(d tui.Decision) {
		if d == tui.AllowAlways {
			b.mu.Lock()
			b.always[call.Name] = true
			b.mu.Unlock()
		}
		b.a.Answer(call.ID, d != tui.Deny)
	}}
	select {
	case b.approvals <- req:
	case <-ctx.Done():
	}
}

func (b *tuiBackend) Approvals() <-chan tui.ApprovalRequest { return b.approvals }

func (b *tuiBackend) Info() tui.Info {
	s := b.a.Session()
	_, model := s.Target()
	price, priced := pricing.Lookup(b.a.Provider(), model)
	sp := b.a.Spend()
	return tui.Info{
		Provider: b.a.Provider(), Model: model, SessionID: s.ID, SearchMode: b.a.SearchMode(),
		Active: len(s.Tools.Active()), Deferred: len(s.Tools.Deferred()), TokensSaved: b.a.TokensSaved(), Note: b.a.Note(),
		Totals: sp.Usage, Requests: sp.Requests, Last: sp.Last, ContextWindow: b.a.ContextWindow(),
		Cost: sp.Cost, CostKnown: !sp.Unpriced, Price: price, Priced: priced,
	}
}

func (b *tuiBackend) Tools() []tui.ToolInfo {
	set := b.a.Session().Tools
	var out []tui.ToolInfo
	for _, t := range set.All() {
		out = append(out, tui.ToolInfo{Name: t.Name, Server: t.Server, Description: t.Description, Deferred: set.IsDeferred(t.Name)})
	}
	return out
}

func (b *tuiBackend) Search(ctx context.Context, query string) ([]tui.ToolInfo, error) {
	hits, err := b.a.SearchTools(query, 10)
	var out []tui.ToolInfo
	for _, h := range hits {
		out = append(out, tui.ToolInfo{Name: h.Name, Server: h.Server, Description: h.Description, Deferred: true})
	}
	return out, err
}

func (b *tuiBackend) SetModel(name string) error { return b.a.SetModel(name) }

func (b *tuiBackend) Sessions(ctx context.Context) ([]tui.SessionInfo, error) {
	rows, err := b.a.Sessions(ctx)
	var out []tui.SessionInfo
	for _, r := range rows {
		out = append(out, tui.SessionInfo{ID: r.ID, Title: r.Title, Model: r.Provider + "/" + r.Model, Messages: r.Messages, Updated: r.Updated})
	}
	return out, err
}

func (b *tuiBackend) Resume(ctx context.Context, id string) ([]agent.Message, error) {
	return b.a.Resume(ctx, id)
}

func (b *tuiBackend) New(ctx context.Context) error { return b.a.New(ctx) }
