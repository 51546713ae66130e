package agent

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/permission"
)

// Searcher runs a client-side tool search over the deferred catalog and
// returns the names of the tools found, best first.
type Searcher interface {
	Search(ctx context.Context, call SearchCall) ([]string, error)
}

// Store persists a session as it happens. Each call commits on its own so a
// crash loses at most the streaming text since the last SavePartial.
type Store interface {
	AppendMessage(ctx context.Context, m Message) error
	SavePartial(ctx context.Context, m Message) error
	RecordRequest(ctx context.Context, r RequestRecord) error
}

// RequestRecord is what is kept of one provider request.
type RequestRecord struct {
	Provider  string
	API       string
	Model     string
	Usage     Usage
	ToolsHash string
	Resolved  SearchMode
}

// Session is one conversation: its history, tool sets and settings. It
// owns its configuration: built with New, changed only by Override at a
// turn boundary.
type Session struct {
	cfg Config
	// busy is set while a turn or a compaction runs (under mu).
	busy bool

	// raiseOutput asks the next request for the model's largest output
	// limit: a tool call was cut by the usual one.
	raiseOutput bool

	// learnMu guards found: each tool a search of this session found, by
	// name, with that search; userText, the user's latest request text,
	// which is what a call of such a tool teaches; and voted, the (request,
	// tool) pairs already taught: one vote each a session.
	learnMu  sync.Mutex
	found    map[string]foundBy
	userText string
	voted    map[[2]string]bool

	mu       sync.Mutex
	history  []Message
	totals   Usage
	approval map[string]chan permission.Decision
	// compaction, when set, replaces the history before its boundary in
	// what is sent (compact.go).
	compaction *Compaction
	// lastPrompt is the prompt size the provider reported for the last
	// response (input, cache and output tokens), when the history was
	// lastLen messages long: the base of the auto-compaction estimate.
	lastPrompt, lastLen int
	// defs are the current tool lists of requests (toolDefs); fitted,
	// the lists last made to fit a provider's tool limit (toollimit.go).
	defs   toolDefs
	fitted fittedDefs
}

// Send runs one turn in the background and returns its event stream, which
// ends with EventDone (see Stream).
func (s *Session) Send(ctx context.Context, text string) <-chan Event {
	return Stream(ctx, func(emit func(Event)) { _ = s.Run(ctx, text, emit) })
}

// Stream runs run in the background and returns the events it emits. The
// run never waits for the reader: events queue until read. Once ctx is
// done, a reader that stopped reading is given up on (the rest of the
// events are dropped and the channel closed).
func Stream(ctx context.Context, run func(emit func(Event))) <-chan Event {
	ch := make(chan Event, 64)
	var (
		mu    sync.Mutex
		queue []Event
		ended bool
		wake  = make(chan struct{}, 1)
	)
	signal := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	go func() {
		run(func(e Event) {
			mu.Lock()
			queue = append(queue, e)
			mu.Unlock()
			signal()
		})
		mu.Lock()
		ended = true
		mu.Unlock()
		signal()
	}()
	go func() {
		defer close(ch)
		for {
			mu.Lock()
			batch, end := queue, ended
			queue = nil
			mu.Unlock()
			for _, e := range batch {
				if !deliver(ctx, ch, e) {
					return
				}
			}
			if end && len(batch) == 0 {
				return
			}
			if len(batch) == 0 {
				<-wake
			}
		}
	}()
	return ch
}

// deliver hands e to the reader. After ctx is done the reader has a grace
// second per event (a front end drains what a cancelled turn still says);
// false means it stopped reading.
func deliver(ctx context.Context, ch chan<- Event, e Event) bool {
	select {
	case ch <- e:
		return true
	case <-ctx.Done():
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case ch <- e:
		return true
	case <-t.C:
		return false
	}
}

// Answer gives the user's yes or no to the approval asked for by an
// approval_requested event (id is the event's Tool.ID). It reports whether a
// call was waiting for it.
func (s *Session) Answer(id string, allow bool) bool {
	d := permission.Decision{Behavior: permission.Deny, Source: permission.SourceUser}
	if allow {
		d.Behavior = permission.Allow
	}
	return s.Decide(id, d)
}

// Decide answers the approval asked for by an approval_requested event
// with a decision: anything but permission.Allow refuses the call, and the
// model reads its Reason (or that the user denied it). It reports whether
// a call was waiting for it.
func (s *Session) Decide(id string, d permission.Decision) bool {
	s.mu.Lock()
	ch, ok := s.approval[id]
	delete(s.approval, id)
	s.mu.Unlock()
	if ok {
		ch <- d
	}
	return ok
}

// askApproval emits an approval request and waits for its answer; a turn
// cancelled meanwhile denies it.
func (s *Session) askApproval(ctx context.Context, ev ToolEvent, emit func(Event)) permission.Decision {
	ch := make(chan permission.Decision, 1)
	s.mu.Lock()
	if s.approval == nil {
		s.approval = map[string]chan permission.Decision{}
	}
	s.approval[ev.ID] = ch
	s.mu.Unlock()
	emit(Event{Type: EventApproval, Tool: &ev})
	select {
	case d := <-ch:
		return d
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.approval, ev.ID)
		s.mu.Unlock()
		return permission.Decision{Behavior: permission.Deny, Source: permission.SourceUser, Reason: InterruptedResult}
	}
}

// Run runs one turn: it sends the user's text, streams the answer, runs the
// tool calls it contains and loops until the model stops, the step budget is
// spent or ctx is cancelled. Every event goes to emit; the last is done.
func (s *Session) Run(ctx context.Context, text string, emit func(Event)) error {
	return s.RunInput(ctx, Input{Text: text}, emit)
}

// RunInput is Run with the images the user attached to the prompt.
func (s *Session) RunInput(ctx context.Context, in Input, emit func(Event)) (err error) {
	// Tool calls run concurrently and each reports its events: emit is
	// serialised so listeners never see two events at once.
	var emitMu sync.Mutex
	unsafeEmit := emit
	emit = func(e Event) {
		emitMu.Lock()
		defer emitMu.Unlock()
		unsafeEmit(e)
	}
	defer func() {
		if err != nil {
			ev := Event{Type: EventError, Err: err}
			ev.Served = FailedRequest(err)
			emit(ev)
		}
		emit(Event{Type: EventDone})
	}()
	if err := s.begin(); err != nil {
		return err
	}
	defer s.end()
	s.mu.Lock()
	s.history = RepairHistory(s.history)
	turnStart := len(s.history)
	s.mu.Unlock()
	warned := false
	if parts := in.Parts(); len(parts) > 0 {
		if s.cfg.Hooks != nil {
			added, err := s.cfg.Hooks.Prompt(ctx, in.Text, emit)
			if err != nil {
				return WithKind(ErrBlocked, err)
			}
			for _, c := range added {
				parts = append(parts, Part{Type: PartText, Text: c, Hook: true})
			}
		}
		// Saved whatever becomes of the turn, as the answer is: a turn
		// cancelled before its request (the catalog wait, say) keeps the
		// prompt in the history, and the store must hold it too; with
		// ctx the save failed as "save message: ... context canceled".
		if err := s.appendMessage(context.WithoutCancel(ctx), Message{Role: RoleUser, Parts: parts}, emit); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return cancelled(ctx, ctx.Err())
		}
		s.noteRequest(in.Text)
	}
	raised, stopHookActive := false, false
	// The budget is the turn's, shared with the subagents its calls run;
	// a subagent's own max_steps bounds its part too.
	ctx, budget := withBudget(ctx, s.cfg.MaxSteps)
	for step := 1; ; step++ {
		if step > s.cfg.MaxSteps {
			return WithKind(ErrBudgetSpent, fmt.Errorf("step budget of %d requests spent: the model is still calling tools; raise --max-steps or ask again", s.cfg.MaxSteps))
		}
		if !budget.take() {
			return WithKind(ErrBudgetSpent, fmt.Errorf("step budget of %d requests spent by this turn and its subagents: raise --max-steps or ask again", budget.max))
		}
		s.autoCompact(ctx, turnStart, &warned, emit)
		sent := time.Now()
		resp, used, err := s.request(ctx, emit, s.BuildRequest, true)
		if s.retryCut(resp, err, &raised, emit) {
			step--
			budget.used.Add(-1)
			continue
		}
		if resp != nil {
			if len(resp.Message.Parts) > 0 {
				if aerr := s.appendMessage(context.WithoutCancel(ctx), resp.Message, emit); aerr != nil && err == nil {
					err = aerr
				}
			}
			u := resp.Usage
			if err == nil {
				s.mu.Lock()
				s.lastPrompt = u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens + u.OutputTokens
				s.lastLen = len(s.history)
				s.mu.Unlock()
			}
			s.mu.Lock()
			s.totals.Add(u)
			s.mu.Unlock()
			emit(Event{Type: EventUsage, Usage: &u, Request: step, StopReason: resp.StopReason, Served: used.served(resp, sent, false)})
			if s.cfg.Store != nil {
				_ = s.cfg.Store.RecordRequest(context.WithoutCancel(ctx), RequestRecord{
					Provider: used.p.Name(), API: used.p.API(), Model: used.model,
					Usage: u, ToolsHash: resp.ToolsHash, Resolved: resp.Resolved,
				})
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				err = cancelled(ctx, ctx.Err())
			}
			if resp == nil {
				// No usage event told what was asked: the error event
				// does (telemetry's chat span for the failed request).
				err = used.failedRequest(err, sent, false)
			}
			return err
		}
		results := s.runCalls(ctx, resp.Message, emit)
		if len(results) == 0 {
			if resp.StopReason == StopPaused {
				continue
			}
			if s.halted(emit) {
				return nil
			}
			// A Stop hook may give the model more to do: the turn goes
			// on, within the step budget.
			if s.cfg.Hooks != nil && ctx.Err() == nil {
				if more := s.cfg.Hooks.Stopping(ctx, stopHookActive, resp.Message.Text(), emit); more != "" && !s.halted(emit) {
					stopHookActive = true
					if err := s.appendMessage(context.WithoutCancel(ctx), Message{Role: RoleUser, Parts: []Part{TextPart(more)}}, emit); err != nil {
						return err
					}
					continue
				}
			}
			return nil
		}
		if err := s.appendMessage(context.WithoutCancel(ctx), Message{Role: RoleUser, Parts: results}, emit); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return cancelled(ctx, ctx.Err())
		}
		if s.halted(emit) {
			return nil
		}
	}
}

// halted reports a hook's "continue": false, telling the user why the
// turn ends.
func (s *Session) halted(emit func(Event)) bool {
	if s.cfg.Hooks == nil {
		return false
	}
	reason, ok := s.cfg.Hooks.Halted()
	if ok {
		msg := "a hook ended the turn"
		if reason != "" {
			msg += ": " + reason
		}
		emit(Event{Type: EventWarning, Text: msg})
	}
	return ok
}

// BuildRequest renders the neutral request for the current history and
// settings. The tool lists depend on the settings alone, never on what was
// discovered, so the provider renders the same tools array every time.
func (s *Session) BuildRequest() *Request {
	s.mu.Lock()
	hist := s.compaction.Apply(append([]Message(nil), s.history...))
	c, raise := s.cfg, s.raiseOutput
	s.mu.Unlock()
	req := &Request{
		Model: c.Model, System: joinSystem(c.System, c.ModeNote), Messages: hist, MaxTokens: c.MaxTokens,
		Search: c.Search, SearchAlgo: c.SearchAlgo, WireBudget: c.WireBudget, ProviderTools: c.ProviderTools, NoStream: c.NoStream,
		Effort: c.Effort, MaxOutput: raise,
	}
	d := s.toolDefs()
	req.Tools, req.Deferred, req.ToolsVersion, req.Directory = d.tools, d.deferred, d.version, d.directory
	return req
}

// joinSystem is the system prompt with the mode's note after it.
func joinSystem(system, note string) string {
	if system == "" || note == "" {
		return system + note
	}
	return system + "\n\n" + note
}

// toolDefs are the tool lists of a request, made once per catalog version
// and search setting and shared by every request until either changes
// (their slices are full, so an append copies).
type toolDefs struct {
	setVersion      uint64
	search          SearchMode
	version         uint64
	tools, deferred []ToolDef
	// directory is tools.Directory of the deferred tools.
	directory string
	// active and deferredTools are the set's tools the lists were made
	// from (the active ones in the order of tools).
	active, deferredTools []tools.Tool
}

// defsVersions numbers the tool lists of every session of the process.
var defsVersions atomic.Uint64

func (s *Session) toolDefs() toolDefs {
	setVersion := s.cfg.Tools.Version()
	s.mu.Lock()
	d := s.defs
	s.mu.Unlock()
	if d.version != 0 && d.setVersion == setVersion && d.search == s.cfg.Search {
		return d
	}
	setVersion, active, deferred := s.cfg.Tools.Snapshot()
	d = toolDefs{setVersion: setVersion, search: s.cfg.Search, version: defsVersions.Add(1), active: active, deferredTools: deferred}
	// Sized up front (nil when empty, as the appends below would leave it).
	sized := func(n int) []ToolDef {
		if n == 0 {
			return nil
		}
		return make([]ToolDef, 0, n)
	}
	if s.cfg.Search == SearchOff {
		d.tools = sized(len(active) + len(deferred))
	} else {
		d.tools, d.deferred = sized(len(active)), sized(len(deferred))
	}
	for _, t := range active {
		d.tools = append(d.tools, defOf(t))
	}
	if s.cfg.Search == SearchOff {
		for _, t := range deferred {
			d.tools = append(d.tools, defOf(t))
		}
	} else {
		for _, t := range deferred {
			d.deferred = append(d.deferred, defOf(t))
		}
		d.directory = tools.Directory(deferred)
	}
	d.tools, d.deferred = d.tools[:len(d.tools):len(d.tools)], d.deferred[:len(d.deferred):len(d.deferred)]
	s.mu.Lock()
	s.defs = d
	s.mu.Unlock()
	return d
}

func defOf(t tools.Tool) ToolDef {
	return ToolDef{Name: t.Name, Description: t.Description, Schema: t.Schema, Server: t.Server, ServerDescription: t.ServerDescription, Tokens: t.Tokens}
}

// DefaultMaxRetryWait is the default of Session.MaxRetryWait.
const DefaultMaxRetryWait = 60 * time.Second

func appendText(ps []Part, t string) []Part {
	if n := len(ps); n > 0 && ps[n-1].Type == PartText {
		ps[n-1].Text += t
		return ps
	}
	return append(ps, TextPart(t))
}

func (s *Session) appendMessage(ctx context.Context, m Message, emit func(Event)) error {
	s.mu.Lock()
	s.history = append(s.history, m)
	s.mu.Unlock()
	emit(Event{Type: EventMessage, Message: &m})
	if s.cfg.Store != nil {
		if err := s.cfg.Store.AppendMessage(ctx, m); err != nil {
			return fmt.Errorf("save message: %w", err)
		}
	}
	return nil
}

// Reset replaces the history (a resumed or new session) and clears usage
// and the compaction (SetCompaction restores a stored one).
func (s *Session) Reset(history []Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history = append([]Message(nil), history...)
	s.totals = Usage{}
	s.compaction = nil
	s.lastPrompt, s.lastLen = 0, 0
}

// Usage returns the tokens the session used so far.
func (s *Session) Usage() Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.totals
	u.ServerToolUses = nil
	u.Add(Usage{ServerToolUses: s.totals.ServerToolUses})
	return u
}

// Messages returns a copy of the history.
func (s *Session) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.history...)
}

// Target is the provider and model the next request goes to.
func (s *Session) Target() (Provider, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Provider, s.cfg.Model
}

// Discovered returns the names of the tools searches have found so far.
func (s *Session) Discovered() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Discovered(s.history)
}

// Discovered lists, once each and in order, the tools found by searches in msgs.
func Discovered(msgs []Message) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type == PartSearchResult && p.SearchResult != nil {
				for _, t := range p.SearchResult.Tools {
					if !seen[t] {
						seen[t] = true
						out = append(out, t)
					}
				}
			}
		}
	}
	return out
}
