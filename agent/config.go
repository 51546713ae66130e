package agent

import (
	"errors"
	"time"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/permission"
)

// ErrBusy is the kind of a configuration change asked for while a turn (or
// a compaction) runs: the change is refused, nothing is half applied, and
// it may be asked again once the turn is done.
var ErrBusy = errors.New("a turn is running")

// Config is what a Session is built with (New). The session owns it: the
// part that may change between turns changes through Override.
type Config struct {
	ID       string
	Provider Provider
	Model    string
	// Fallback is used, with FallbackModel, when Provider stays overloaded.
	Fallback      Provider
	FallbackModel string
	System        string
	Tools         *tools.Set
	Search        SearchMode
	SearchAlgo    string
	// WireBudget is Request.WireBudget (bytes; 0: no limit).
	WireBudget int
	// DeferToFit (--defer auto) defers whole servers' tools from a request
	// that would carry more tools than its provider takes (toollimit.go);
	// without it such a request fails before it is sent.
	DeferToFit    bool
	ProviderTools []ProviderTool
	// MaxSteps bounds the provider requests of one turn.
	MaxSteps int
	// MaxTokens is the output limit (0: the model's default from the
	// models table); Effort the reasoning effort ("": provider default).
	MaxTokens int
	Effort    string
	NoStream  bool
	Searcher  Searcher
	Store     Store
	// Learner, when set, is told each search's tools and each call of a
	// tool a search found (learn.go).
	Learner Learner
	// Permit decides each tool call before it runs (nil: every call
	// runs). A permission.Deny is refused with its Reason as the result the
	// model reads; a permission.Ask waits after its approval_requested event
	// until Decide (or Answer) is called with the event's Tool.ID, or the
	// turn is cancelled (denied).
	Permit permission.Func
	// ModeNote is said after System in every request: what the permission
	// mode means for the model (plan mode's refusals). It changes at a turn
	// boundary, through Override, like System.
	ModeNote string
	// Retries is how many times a retryable provider error is retried.
	Retries int
	// Backoff is the first retry delay; it doubles with jitter.
	Backoff time.Duration
	// MaxRetryWait is the longest retry-after honoured (default 60 s); a
	// provider asking for longer fails the turn at once, saying when to retry.
	MaxRetryWait time.Duration
	// PartialEvery is how often streaming text is checkpointed to the store.
	PartialEvery time.Duration
	// BeforeSend, when set, is called just before each provider request is
	// handed to the provider (the app starts deferred MCP work there).
	BeforeSend func()
	// AfterSend, when set, is called once per provider request once it has
	// gone out: when the provider's HTTP layer has written it (reported
	// through the request's context, SentHook), else at the answer's first
	// event or the request's end. Work that need not be done before the
	// first request, but should not compete with its encoding and sending,
	// goes there (the app writes a first run's catalogs): the run then
	// only waits for the answer.
	AfterSend func()
	// AutoCompact is the share of ContextWindow (tokens) a request may fill
	// before the earlier turns are compacted; 0 turns it off, as does a
	// ContextWindow of 0.
	AutoCompact   float64
	ContextWindow int
	// Hooks are the user's commands at points of a turn (nil: none).
	Hooks Hooks
	// Now is the clock of tool calls' durations (nil: time.Now); tests
	// pin it to tell the tool's run from the wait for its approval.
	Now func() time.Time
}

// New builds a session from its configuration, with the defaults filled in.
func New(c Config) *Session {
	c.defaults()
	return &Session{cfg: c}
}

// defaults fills in what was left zero.
func (c *Config) defaults() {
	if c.MaxSteps <= 0 {
		c.MaxSteps = 25
	}
	if c.Retries == 0 {
		c.Retries = 4
	}
	if c.Backoff <= 0 {
		c.Backoff = 500 * time.Millisecond
	}
	if c.MaxRetryWait <= 0 {
		c.MaxRetryWait = DefaultMaxRetryWait
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.PartialEvery <= 0 {
		c.PartialEvery = 250 * time.Millisecond
	}
	if c.Tools == nil {
		c.Tools = tools.NewSet()
	}
}

// TurnContext is the part of a session's configuration that may change
// between turns: everything but the tool set (whose contents change, the
// set itself does not) and the checkpoint interval.
type TurnContext struct {
	ID            string
	Store         Store
	Provider      Provider
	Model         string
	Fallback      Provider
	FallbackModel string
	System        string
	Search        SearchMode
	SearchAlgo    string
	WireBudget    int
	DeferToFit    bool
	ProviderTools []ProviderTool
	MaxSteps      int
	MaxTokens     int
	Effort        string
	NoStream      bool
	Searcher      Searcher
	Learner       Learner
	Permit        permission.Func
	ModeNote      string
	Retries       int
	Backoff       time.Duration
	MaxRetryWait  time.Duration
	BeforeSend    func()
	AfterSend     func()
	AutoCompact   float64
	ContextWindow int
}

func (c *Config) turn() TurnContext {
	return TurnContext{ID: c.ID, Store: c.Store, Provider: c.Provider, Model: c.Model, Fallback: c.Fallback,
		FallbackModel: c.FallbackModel, System: c.System, Search: c.Search, SearchAlgo: c.SearchAlgo,
		WireBudget: c.WireBudget, DeferToFit: c.DeferToFit, ProviderTools: c.ProviderTools, MaxSteps: c.MaxSteps, MaxTokens: c.MaxTokens,
		Effort: c.Effort, NoStream: c.NoStream, Searcher: c.Searcher, Learner: c.Learner, Permit: c.Permit, ModeNote: c.ModeNote,
		Retries: c.Retries, Backoff: c.Backoff, MaxRetryWait: c.MaxRetryWait, BeforeSend: c.BeforeSend,
		AfterSend: c.AfterSend, AutoCompact: c.AutoCompact, ContextWindow: c.ContextWindow}
}

func (c *Config) setTurn(t TurnContext) {
	c.ID, c.Store, c.Provider, c.Model, c.Fallback, c.FallbackModel = t.ID, t.Store, t.Provider, t.Model, t.Fallback, t.FallbackModel
	c.System, c.Search, c.SearchAlgo, c.WireBudget, c.DeferToFit, c.ProviderTools = t.System, t.Search, t.SearchAlgo, t.WireBudget, t.DeferToFit, t.ProviderTools
	c.MaxSteps, c.MaxTokens, c.Effort, c.NoStream = t.MaxSteps, t.MaxTokens, t.Effort, t.NoStream
	c.Searcher, c.Learner, c.Permit, c.ModeNote = t.Searcher, t.Learner, t.Permit, t.ModeNote
	c.Retries, c.Backoff, c.MaxRetryWait, c.BeforeSend, c.AfterSend = t.Retries, t.Backoff, t.MaxRetryWait, t.BeforeSend, t.AfterSend
	c.AutoCompact, c.ContextWindow = t.AutoCompact, t.ContextWindow
}

// TurnContext returns a copy of the session's turn context.
func (s *Session) TurnContext() TurnContext {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.turn()
}

// Override changes the turn context from the next turn on: change edits a
// copy of the current one, applied whole. During a turn (or a compaction)
// change is not called, nothing changes and the error is of kind ErrBusy:
// a turn's requests all go out with the configuration it started with.
// change runs under the session's lock: it must not call the session.
func (s *Session) Override(change func(*TurnContext)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return WithKind(ErrBusy, errors.New("a turn is running: change the session when it ends, or cancel the turn first"))
	}
	tc := s.cfg.turn()
	change(&tc)
	s.cfg.setTurn(tc)
	s.cfg.defaults()
	return nil
}

// begin marks the session busy for a turn or a compaction; it fails with
// ErrBusy when one already runs. end undoes it.
func (s *Session) begin() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return WithKind(ErrBusy, errors.New("a turn is already running"))
	}
	s.busy = true
	return nil
}

func (s *Session) end() {
	s.mu.Lock()
	s.busy = false
	s.mu.Unlock()
}

// ID is the stored session's id ("" when not stored).
func (s *Session) ID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.ID
}

// Tools is the session's tool set. Its contents change between turns (MCP
// servers' lists, an agent profile's deferral); the set itself is fixed.
func (s *Session) Tools() *tools.Set { return s.cfg.Tools }

// Searcher is the client-side search engine the session was built with.
func (s *Session) Searcher() Searcher { return s.cfg.Searcher }
