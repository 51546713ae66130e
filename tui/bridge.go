package tui

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/agent"
)

// eventMsg carries one agent event into Update. Found describes the tools a
// finished search returned; the bridge looks them up so Update never calls
// the backend.
type eventMsg struct {
	Event agent.Event
	Found []ToolInfo
	// Unlisted: a tool call's tool is not in the session's tools (a
	// model's made-up name), so its card names no server.
	Unlisted bool
}

// alertMsg is an error from outside a turn (Options.Alerts).
type alertMsg struct{ Text string }

// turnEndMsg says the turn's event channel closed.
type turnEndMsg struct{}

// approvalMsg asks the user to approve a tool call.
type approvalMsg struct{ Req ApprovalRequest }

// turnRunner starts and cancels turns; the bridge implements it and tests
// fake it.
type turnRunner interface {
	Start(in agent.Input)
	Cancel()
}

type sender interface{ Send(tea.Msg) }

// bridge is the one goroutine that forwards agent events and approval
// requests into the program with Program.Send.
type bridge struct {
	ctx   context.Context
	b     Backend
	p     sender
	start chan agent.Input
	quit  chan struct{}
	once  sync.Once

	mu     sync.Mutex
	cancel context.CancelFunc
	tools  map[string]ToolInfo
}

func newBridge(ctx context.Context, b Backend, p sender) *bridge {
	return &bridge{ctx: ctx, b: b, p: p, start: make(chan agent.Input, 1), quit: make(chan struct{})}
}

// Start queues a turn. It is called from a tea.Cmd.
func (br *bridge) Start(in agent.Input) {
	select {
	case br.start <- in:
	case <-br.quit:
	case <-br.ctx.Done():
	}
}

// Cancel cuts the running turn short; what arrived is kept by the session.
func (br *bridge) Cancel() {
	br.mu.Lock()
	defer br.mu.Unlock()
	if br.cancel != nil {
		br.cancel()
	}
}

func (br *bridge) stop() {
	br.once.Do(func() { close(br.quit) })
	br.Cancel()
}

func (br *bridge) run() {
	approvals := br.b.Approvals()
	var forms <-chan FormRequest
	if e, ok := br.b.(Elicitor); ok {
		forms = e.Elicitations()
	}
	var events <-chan agent.Event
	for {
		select {
		case <-br.ctx.Done():
			return
		case <-br.quit:
			return
		case in := <-br.start:
			ctx, cancel := context.WithCancel(br.ctx)
			br.mu.Lock()
			br.cancel = cancel
			br.mu.Unlock()
			if is, ok := br.b.(ImageSender); ok && len(in.Images) > 0 {
				events = is.SendInput(ctx, in)
			} else {
				events = br.b.Send(ctx, in.Text)
			}
		case ev, ok := <-events:
			if !ok {
				events = nil
				br.Cancel()
				br.p.Send(turnEndMsg{})
				continue
			}
			if !br.forward(ev, events) {
				events = nil
				br.Cancel()
				br.p.Send(turnEndMsg{})
			}
		case req, ok := <-approvals:
			if !ok {
				approvals = nil
				continue
			}
			br.p.Send(approvalMsg{Req: req})
		case req, ok := <-forms:
			if !ok {
				forms = nil
				continue
			}
			br.p.Send(formMsg{Req: req})
		}
	}
}

// forward sends ev, first merging text deltas that are already queued: at
// hundreds of deltas a second the UI needs the text, not every fragment.
// It reports false when the channel closed meanwhile.
func (br *bridge) forward(ev agent.Event, events <-chan agent.Event) bool {
	for ev.Type == agent.EventTextDelta {
		select {
		case next, ok := <-events:
			if !ok {
				br.p.Send(eventMsg{Event: ev})
				return false
			}
			if next.Type == agent.EventTextDelta {
				ev.Text += next.Text
				continue
			}
			br.p.Send(eventMsg{Event: ev})
			ev = next
		default:
			br.p.Send(eventMsg{Event: ev})
			return true
		}
	}
	br.p.Send(br.message(ev))
	return true
}

// message is ev as the model receives it, with what the bridge looks up.
func (br *bridge) message(ev agent.Event) eventMsg {
	msg := eventMsg{Event: ev}
	if ev.Type == agent.EventSearchFinished && ev.Search != nil {
		msg.Found = br.describe(ev.Search.Tools)
	}
	if ev.Type == agent.EventToolStarted && ev.Tool != nil && ev.Tool.Server == "" {
		// No server: built-in, or no tool of that name at all, which
		// the card must not call built-in.
		msg.Unlisted = !br.listed(ev.Tool.Name)
	}
	return msg
}

// listed reports whether the session has a tool of that name (describe
// refreshes the list for a name it does not know).
func (br *bridge) listed(name string) bool {
	br.describe([]string{name})
	br.mu.Lock()
	defer br.mu.Unlock()
	_, ok := br.tools[name]
	return ok
}

// describe looks up what a search found, refreshing the tool list when a
// name is new (servers can add tools mid-session).
func (br *bridge) describe(names []string) []ToolInfo {
	br.mu.Lock()
	defer br.mu.Unlock()
	missing := br.tools == nil
	for _, n := range names {
		if _, ok := br.tools[n]; !ok {
			missing = true
		}
	}
	if missing {
		br.tools = map[string]ToolInfo{}
		for _, t := range br.b.Tools() {
			br.tools[t.Name] = t
		}
	}
	out := make([]ToolInfo, 0, len(names))
	for _, n := range names {
		t, ok := br.tools[n]
		if !ok {
			t = ToolInfo{Name: n}
		}
		out = append(out, t)
	}
	return out
}
