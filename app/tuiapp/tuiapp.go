// Package tuiapp is the terminal UI's view of the application: it adapts
// an app.App to tui.Backend (approvals as the TUI's dialogs, "always"
// answers remembered, MCP servers refreshed between turns).
package tuiapp

import (
	"context"
	"sync"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/tools/permission"
	"github.com/agent-dev/agent/tui"
)

// New returns the TUI backend over a.
func New(a *app.App) *Backend {
	b := &Backend{a: a, approvals: make(chan tui.ApprovalRequest), forms: make(chan tui.FormRequest), always: map[string]bool{}}
	a.SetAsker(b)
	return b
}

// App is the application the backend drives.
func (b *Backend) App() *app.App { return b.a }

// Backend is the TUI's view of the app: it turns approval events into
// the TUI's approval requests and remembers "always" answers.
type Backend struct {
	a         *app.App
	approvals chan tui.ApprovalRequest
	forms     chan tui.FormRequest

	mu     sync.Mutex
	always map[string]bool
	// turning is set while a turn runs: the tool set stays as it is.
	turning bool
}

var (
	_ tui.Backend        = (*Backend)(nil)
	_ tui.Refresher      = (*Backend)(nil)
	_ tui.ModelLister    = (*Backend)(nil)
	_ tui.ModelWarner    = (*Backend)(nil)
	_ tui.SessionDeleter = (*Backend)(nil)
	_ tui.ImageSender    = (*Backend)(nil)
)

func (b *Backend) Send(ctx context.Context, text string) <-chan agent.Event {
	return b.SendInput(ctx, agent.Input{Text: text})
}

// CheckImages says why the current model cannot be sent these images.
func (b *Backend) CheckImages(images []agent.Image) error { return b.a.CheckImages(images) }

// SendInput starts a turn with the images the prompt attached.
func (b *Backend) SendInput(ctx context.Context, input agent.Input) <-chan agent.Event {
	b.setTurning(true)
	in := b.a.SendInput(ctx, input)
	// What MCP servers reported since the last turn (and tool list
	// changes, which take effect now) is said in the chat.
	notes := b.a.NewNotices()
	return agent.Stream(ctx, func(emit func(agent.Event)) {
		for _, n := range notes {
			emit(noticeEvent(n))
		}
		for ev := range in {
			if ev.Type == agent.EventApproval {
				go b.ask(ctx, *ev.Tool)
			}
			emit(ev)
			if ev.Type == agent.EventCatalogReady {
				// The servers the turn waited for came up during the wait
				// ("MCP server tt is up (6 tools)"): said now, before the
				// answer. Taken at the next refresh, it came after it.
				for _, n := range b.a.NewNotices() {
					emit(noticeEvent(n))
				}
			}
		}
		b.setTurning(false)
	})
}

// noticeEvent is a notice in a turn's stream: a warning, or news.
func noticeEvent(n app.Notice) agent.Event {
	if n.Warning {
		return agent.Event{Type: agent.EventWarning, Text: n.Text}
	}
	return agent.Event{Type: agent.EventNotice, Text: n.Text}
}

func (b *Backend) setTurning(on bool) {
	b.mu.Lock()
	b.turning = on
	b.mu.Unlock()
}

// Refresh runs between turns: servers that came up since are added, and
// what they reported is said. The server's own notice ("MCP server tt is
// up (6 tools)", "... changed its tools") says the change: a second line,
// "tools of tt are ready", said it again.
func (b *Backend) Refresh() []tui.Note {
	b.mu.Lock()
	turning := b.turning
	b.mu.Unlock()
	if turning {
		return nil
	}
	b.a.SyncTools()
	var notes []tui.Note
	for _, n := range b.a.NewNotices() {
		notes = append(notes, tui.Note{Text: n.Text, Warning: n.Warning})
	}
	return notes
}

// UntrustedCommand says whether /name is a command of a project left
// untrusted.
func (b *Backend) UntrustedCommand(name string) bool { return b.a.UntrustedCommand(name) }

// Models lists what /model offers.
func (b *Backend) Models(ctx context.Context) ([]tui.ModelInfo, error) {
	var out []tui.ModelInfo
	for _, m := range b.a.ListModels(ctx) {
		out = append(out, tui.ModelInfo{Name: m.Name, Detail: m.Detail})
	}
	return out, nil
}

// Delete removes a stored session; the current one cannot be.
func (b *Backend) Delete(ctx context.Context, id string) error { return b.a.Delete(ctx, id) }

// ask puts one approval to the user. An "always" answer is saved by the
// app as an allow rule (this session, the project's settings.local.json or
// the user config), so the calls it covers no longer ask; a rule that could
// not be saved is said, and this call is allowed still.
func (b *Backend) ask(ctx context.Context, call agent.ToolEvent) {
	req := tui.ApprovalRequest{Tool: call, Reply: func(d tui.Decision) {
		if server, scope, ok := d.Always(); ok {
			if err := b.a.AllowAlways(call.ID, call.Name, server, permission.Scope(scope)); err != nil {
				b.a.Notice("the always answer was not saved: " + err.Error())
			}
		}
		b.a.Answer(call.ID, d != tui.Deny)
	}}
	select {
	case b.approvals <- req:
	case <-ctx.Done():
	}
}

// CyclePermissionMode is shift+tab: the next permission mode.
func (b *Backend) CyclePermissionMode() string { return string(b.a.CyclePermissionMode()) }

func (b *Backend) Approvals() <-chan tui.ApprovalRequest { return b.approvals }

func (b *Backend) Info() tui.Info {
	s := b.a.Session()
	_, model := s.Target()
	price, priced := app.Price(b.a.Provider(), model)
	sp := b.a.Spend()
	var instr []tui.InstructionInfo
	for _, f := range b.a.Instructions() {
		instr = append(instr, tui.InstructionInfo{Path: f.Path, Bytes: f.Bytes, Size: f.Size, Cut: f.Cut})
	}
	var cmds []tui.CommandInfo
	for _, c := range b.a.Commands() {
		cmds = append(cmds, tui.CommandInfo{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint, Source: c.Label(), Path: c.Path})
	}
	return tui.Info{
		Provider: b.a.Provider(), Model: model, SessionID: s.ID(), SearchMode: b.a.SearchMode(),
		Active: len(s.Tools().Active()), Deferred: len(s.Tools().Deferred()), TokensSaved: b.a.TokensSaved(), Note: b.a.Note(),
		Totals: sp.Usage, Requests: sp.Requests, Last: sp.Last, ContextWindow: b.a.ContextWindow(),
		Cost: sp.Cost, CostKnown: !sp.Unpriced, Price: price, Priced: priced, Instructions: instr, Commands: cmds,
		Mode: string(b.a.PermissionMode()),
	}
}

func (b *Backend) Tools() []tui.ToolInfo {
	set := b.a.Session().Tools()
	var out []tui.ToolInfo
	for _, t := range set.All() {
		out = append(out, tui.ToolInfo{Name: t.Name, Server: t.Server, Description: t.Description, Deferred: set.IsDeferred(t.Name)})
	}
	return out
}

func (b *Backend) Search(ctx context.Context, query string) ([]tui.ToolInfo, error) {
	hits, err := b.a.SearchTools(query, 10)
	var out []tui.ToolInfo
	for _, h := range hits {
		out = append(out, tui.ToolInfo{Name: h.Name, Server: h.Server, Description: h.Description, Deferred: true})
	}
	return out, err
}

func (b *Backend) SetModel(name string) error { return b.a.SetModel(name) }

// ModelWarning says the current model is unknown to the tables.
func (b *Backend) ModelWarning() string { return b.a.ModelWarning() }

func (b *Backend) Sessions(ctx context.Context) ([]tui.SessionInfo, error) {
	rows, err := b.a.Sessions(ctx)
	var out []tui.SessionInfo
	cur := b.a.Session().ID()
	for _, r := range rows {
		if r.ID == cur && r.Messages == 0 {
			// The session this run opened and nothing was said in yet
			// (agent --resume's picker comes before any prompt): choosing
			// it resumes nothing, and it is not kept when the run ends.
			continue
		}
		title := r.Title
		if r.ParentID != "" {
			title = "↳ subagent of " + r.ParentID + ": " + title // as agent sessions marks it
		}
		out = append(out, tui.SessionInfo{ID: r.ID, Title: title, Model: r.Provider + "/" + r.Model, Messages: r.Messages, Updated: r.Updated})
	}
	return out, err
}

func (b *Backend) Resume(ctx context.Context, id string) ([]agent.Message, error) {
	return b.a.Resume(ctx, id)
}

func (b *Backend) New(ctx context.Context) error { return b.a.New(ctx) }

var (
	_ tui.Compacter     = (*Backend)(nil)
	_ tui.AgentSwitcher = (*Backend)(nil)
)

// Compact is /compact [FOCUS]: the model summarises the conversation so far.
func (b *Backend) Compact(ctx context.Context, focus string) (*agent.Compaction, error) {
	return b.a.Compact(ctx, focus)
}

// Agents lists the profiles for /agent.
func (b *Backend) Agents() ([]tui.AgentInfo, error) {
	set := b.a.Settings().Profiles()
	current := b.a.Settings().Agent
	var out []tui.AgentInfo
	for _, p := range set.List() {
		out = append(out, tui.AgentInfo{Name: p.Name, Description: p.Description, Source: p.Source, Current: p.Name == current})
	}
	if len(set.Errors) > 0 {
		return out, set.Errors[0]
	}
	return out, nil
}

// SetAgent is /agent NAME (see app.SetAgent).
func (b *Backend) SetAgent(name string) (string, error) { return b.a.SetAgent(name) }

// SkipCatalogWait sends a request held for starting MCP servers without them.
func (b *Backend) SkipCatalogWait() bool { return b.a.SkipCatalogWait() }
