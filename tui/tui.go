// Package tui is the terminal front end: a Bubble Tea program with the chat,
// the live "discovered tools" pane, tool cards, a status bar, an input with
// history and the dialogs (approval, session picker). It consumes the agent
// through Backend, an interface of its own, so it never touches a provider,
// the store or the tool set directly.
package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/pricing"
)

// Backend is everything the TUI needs from the agent. app/tuiapp implements
// it over an app.App. Methods other than Send and Approvals are called from
// tea.Cmds (never from Update) and may block briefly.
type Backend interface {
	// Send starts one turn. The channel ends with agent.EventDone; cancelling
	// ctx cuts the turn short and keeps what arrived.
	Send(ctx context.Context, text string) <-chan agent.Event
	// Approvals delivers what needs the user's yes or no: a tool call's
	// approval, an MCP server's sampling request. The call waits until
	// Reply is called. A nil channel disables approvals.
	Approvals() <-chan ApprovalRequest
	// Info is the status bar data; it is read again after every turn.
	Info() Info
	// Tools lists every tool, active and deferred, for /tools and to
	// describe what a search found.
	Tools() []ToolInfo
	// Search runs the client-side search engine without the model (/search).
	Search(ctx context.Context, query string) ([]ToolInfo, error)
	// SetModel switches the model mid-session (/model NAME).
	SetModel(name string) error
	// Sessions lists stored sessions, newest first (/sessions).
	Sessions(ctx context.Context) ([]SessionInfo, error)
	// Resume makes the session with id current and returns its history.
	Resume(ctx context.Context, id string) ([]agent.Message, error)
	// New starts a fresh session (/new).
	New(ctx context.Context) error
}

// Info is what the status bar shows about the backend.
type Info struct {
	Provider   string
	Model      string
	SessionID  string
	SearchMode string
	// Active and Deferred count the tools of each set.
	Active, Deferred int
	// TokensSaved estimates the tokens deferral keeps out of every request.
	TokensSaved int
	// Note is shown highlighted at the right of the bar, e.g.
	// "demo: scripted local model".
	Note string
	// Totals is the session's token usage so far, stored requests of a
	// resumed session included; Requests counts those requests and Last is
	// the newest one (its input is what fills the context window).
	Totals   agent.Usage
	Requests int
	Last     agent.Usage
	// ContextWindow is the model's context size in tokens (0: unknown).
	ContextWindow int
	// Cost is what the session cost so far in US dollars; CostKnown is false
	// when a model it used has no price in the table.
	Cost      float64
	CostKnown bool
	// Price prices the current model's requests as they arrive (Priced
	// false: unknown), until Info is read again after the turn.
	Price  pricing.Price
	Priced bool
	// Mode is the permission mode ("" or "default" is not shown).
	Mode string
	// Instructions are the instruction files (AGENTS.md) in the system
	// prompt, for /context.
	Instructions []InstructionInfo
	// Commands are the custom commands (custom.go).
	Commands []CommandInfo
}

// InstructionInfo is one instruction file sent in the system prompt: its
// path, the bytes sent and the file's size (more when the cap cut it).
type InstructionInfo struct {
	Path        string
	Bytes, Size int
	// Cut: the cap cut the file (Bytes is less than Size for the blank
	// lines around its text too, which are never sent).
	Cut bool
}

// ToolInfo describes one tool for display.
type ToolInfo struct {
	Name        string
	Server      string
	Description string
	Deferred    bool
}

// SessionInfo is one row of the /sessions picker.
type SessionInfo struct {
	ID       string
	Title    string
	Model    string
	Messages int
	Updated  time.Time
}

// Decision is the user's answer to an approval request.
type Decision int

const (
	Deny Decision = iota
	Allow
	// AllowAlways allows this call and every later call of the same tool
	// in this session.
	AllowAlways
	// AllowToolProject and AllowToolUser allow the tool always, saved for
	// this project (.agent/settings.local.json) or the user (config file).
	AllowToolProject
	AllowToolUser
	// AllowServer, AllowServerProject and AllowServerUser allow every tool
	// of the call's server: this session, this project, always.
	AllowServer
	AllowServerProject
	AllowServerUser
)

// Always tells what an "always" answer covers: the whole server or the
// tool, and where it is kept ("session", "project" or "user"); ok is false
// for once and deny.
func (d Decision) Always() (server bool, scope string, ok bool) {
	switch d {
	case AllowAlways:
		return false, "session", true
	case AllowToolProject:
		return false, "project", true
	case AllowToolUser:
		return false, "user", true
	case AllowServer:
		return true, "session", true
	case AllowServerProject:
		return true, "project", true
	case AllowServerUser:
		return true, "user", true
	}
	return false, "", false
}

func (d Decision) String() string {
	server, scope, ok := d.Always()
	switch {
	case d == Allow:
		return "allowed"
	case !ok:
		return "denied"
	}
	what := "this tool"
	if server {
		what = "its server"
	}
	where := map[string]string{"session": "this session", "project": "this project", "user": "always"}[scope]
	return fmt.Sprintf("always allowed (%s, %s)", what, where)
}

// ApprovalRequest is one tool call waiting for the user. Reply must be
// called exactly once; the TUI calls it from a tea.Cmd.
type ApprovalRequest struct {
	Tool  agent.ToolEvent
	Reply func(Decision)
	// SessionOnly: "always" can only mean this server, this session (an
	// MCP server's sampling request): a answers AllowServer at once.
	SessionOnly bool
	// Question, when set, is the dialog's title in place of "Allow this
	// tool call? NAME · SERVER": a server's sampling request is no tool
	// call, and its name already says the server.
	Question string
	// Done, when it closes, withdraws the dialog unanswered: the request
	// behind it ended first (the server cancelled it, it timed out, the
	// connection dropped). Why, when set, says why in a few words.
	Done <-chan struct{}
	Why  func() string
	// seq numbers the question in the program (Model.approvalSeq): its
	// type-ahead guard is its own, whatever the call's id.
	seq int
}

// Options configure the program.
type Options struct {
	// Theme is a themes name or "auto" (follow the terminal background).
	Theme string
	// PickSession opens the session picker on start (--resume without an
	// ID).
	PickSession bool
	// NoColor drops all colours; Run also honours the NO_COLOR variable.
	NoColor bool
	// History is a resumed session's messages, rendered on start.
	History []agent.Message
	// Warnings are shown once in the chat when the program starts, and
	// News after them, unmarked (an MCP server that is up).
	Warnings, News []string
	// Alerts are errors that happen outside a turn (an MCP server named
	// with --mcp that failed to start in the background), shown in the
	// chat as errors when they arrive.
	Alerts <-chan string
	// AltScreen runs full screen. The default runs inline: finished
	// messages go to the terminal's scrollback, where they stay after exit,
	// and only what is still changing is redrawn.
	AltScreen bool
	// Prompt, when set, is sent as the first message once the program starts.
	Prompt string
	// TypeAhead is what was typed before a question asked ahead of the
	// chat could be read (AskTrust): it goes to the input, as typed, and
	// is not sent.
	TypeAhead TypeAhead
	// Suggestions are prompts worth trying (the demo's): listed in the
	// empty chat and put in the input history, so ↑ recalls them.
	Suggestions []string
	// Width and Height fix the initial size (tests); 0 waits for the terminal.
	Width, Height int
	// Now is the clock for elapsed times; tests pin it. Defaults to time.Now.
	Now func() time.Time
	// RenderEvery throttles Markdown re-rendering while text streams.
	RenderEvery time.Duration
	// ApprovalGuard is how long after an approval question appears, or
	// after the last key typed in that time, its answers are taken
	// (default 500 ms; negative: at once): keys typed before it appeared
	// were meant for the input ("yes, and..." typed while a turn ran
	// approved the call with its "y") and go there.
	ApprovalGuard time.Duration
	// RefreshEvery is how often the status data is read again while idle
	// (servers starting in the background add tools). Default 2s.
	RefreshEvery time.Duration
	// Input and Output replace the terminal (tests); nil means stdin/stdout.
	Input  io.Reader
	Output io.Writer
}

func (o *Options) defaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.RenderEvery <= 0 {
		o.RenderEvery = 100 * time.Millisecond
	}
	if o.RefreshEvery <= 0 {
		o.RefreshEvery = 2 * time.Second
	}
	if o.ApprovalGuard == 0 {
		o.ApprovalGuard = 500 * time.Millisecond
	}
	if o.Theme == "" {
		o.Theme = "auto"
	}
	if os.Getenv("NO_COLOR") != "" {
		o.NoColor = true
	}
}

// Run starts the program on the terminal (alternate screen, mouse cell
// motion) and blocks until the user quits or ctx ends.
func Run(ctx context.Context, b Backend, opts Options) error {
	opts.defaults()
	m, err := New(b, opts)
	if err != nil {
		return err
	}
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	out := opts.Output
	if out == nil {
		out = os.Stdout
	}
	if f, ok := out.(*os.File); ok {
		m.tty = f
	}
	m.fence = newFrameFence()
	defer m.fence.stop()
	popts = append(popts, tea.WithOutput(m.fence.watch(out)))
	if opts.Width > 0 && opts.Height > 0 {
		popts = append(popts, tea.WithWindowSize(opts.Width, opts.Height))
	}
	p := tea.NewProgram(m, popts...)
	br := newBridge(ctx, b, p)
	m.turns = br
	go br.run()
	defer br.stop()
	if opts.Alerts != nil {
		go func() {
			for {
				select {
				case text, ok := <-opts.Alerts:
					if !ok {
						return
					}
					p.Send(alertMsg{text})
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	if _, err := p.Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("run terminal ui: %w", err)
	}
	return nil
}
