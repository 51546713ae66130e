// Package mcp turns MCP servers into tools: it connects servers over stdio,
// streamable HTTP or SSE, lists their tools with schemas forwarded verbatim,
// namespaces the names per server, runs tool calls with a timeout and a size
// cap, follows tools/list_changed, and restarts servers that die.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp/oauth"
)

// Defaults for Options left zero.
const (
	DefaultStartTimeout   = 30 * time.Second
	DefaultInitTimeout    = 10 * time.Second
	DefaultToolTimeout    = 120 * time.Second
	DefaultMaxResultBytes = 100_000
)

// Options configure a Manager. Zero values take the defaults above.
type Options struct {
	// StartTimeout bounds connecting to one server and listing its tools;
	// a server's own Timeout wins.
	StartTimeout time.Duration
	// InitTimeout bounds the answer to initialize, counted for a stdio
	// server from its first output (within StartTimeout in any case).
	InitTimeout time.Duration
	// ToolTimeout bounds one tool call; a server's own ToolTimeout wins.
	ToolTimeout time.Duration
	// MaxResultBytes caps a tool result's text; a server's own value wins.
	MaxResultBytes int
	// MaxToolResultBytes caps what one tool result may take as it is read
	// from the server, before it is decoded (max_tool_result_bytes): past
	// it the result is cut with a note and the rest never held in memory.
	MaxToolResultBytes int
	// Workdir is the working directory of stdio servers without a Cwd.
	Workdir string
	// PidDir, when set, keeps a pid file per stdio server the manager
	// starts, and Start first ends the servers other agents that crashed
	// left running (EndLeftovers).
	PidDir string
	// OnEvent receives status changes (tools changed, server down or back,
	// start failures). It is called from the manager's goroutines and must
	// not block.
	OnEvent func(Event)
	Logger  *slog.Logger
	// ClientName and ClientVersion identify the agent to servers.
	ClientName    string
	ClientVersion string
	// Cache, when set, keeps each server's last tool list between runs:
	// Start registers the cached list at once and connects the server in
	// the background; a list that turns out different applies at the next
	// Sync, like tools/list_changed.
	Cache Cache
	// Background makes Start wait for no server at all: servers without a
	// cached list add their tools when they are up, at the next Sync (the
	// TUI's first frame never waits).
	Background bool
	// OAuth is how remote servers are signed in to (Dir empty: they are
	// not; a 401 fails their start as before).
	OAuth oauth.Options
	// DeferStart makes the servers Start leaves to the background (those
	// with a cached list) start only when StartDeferred is called (the app
	// does so as its first request goes out) or a tool of theirs is called:
	// their processes and listings, megabytes at thousands of tools, then
	// do not compete with the first request for CPU and memory.
	DeferStart bool
	// Host answers servers' elicitation and sampling requests (client.go);
	// nil declines them.
	Host Host
	// LogLevel is the level asked of servers that log (logging/setLevel):
	// debug, info, notice, warning, error... ("" leaves the server's own).
	// Their messages go to Logger, never to the terminal.
	LogLevel string
}

// EventKind names a status change.
type EventKind string

const (
	// EventToolsChanged: a server's tool list changed; Sync applies it.
	EventToolsChanged EventKind = "tools_changed"
	// EventServerDown: a server stopped; its tools restart it when called.
	EventServerDown EventKind = "server_down"
	// EventServerUp: a server that was down is connected again.
	EventServerUp EventKind = "server_up"
	// EventWarning: a server could not be started; the others work.
	EventWarning EventKind = "warning"
	// EventListChanged: a server's resources or prompts changed (applied
	// at once: they are not part of the tools array).
	EventListChanged EventKind = "list_changed"
)

// Event is a status change for the UI.
type Event struct {
	Kind   EventKind
	Server string
	// Text is a one-line message to show as it is.
	Text string
	// Added and Removed are the agent's tool names, on tools_changed.
	Added, Removed []string
	// Tools is the server's tool count after the change.
	Tools int
	// CacheMiss says a tools_changed alters the tools array the session
	// already registered: the turn it applies to reads its prompt without
	// the provider's cache once. Text leaves when and what it costs to
	// the app, which knows whether any request went out yet.
	CacheMiss bool
}

// State is a server's connection state.
type State string

const (
	StateStarting State = "starting"
	// StateIdle: its tool list is cached and it waits for the first call
	// of one of its tools (or /mcp reconnect) to start (config "start").
	StateIdle     State = "idle"
	StateRunning  State = "running"
	StateFailed   State = "failed"   // never came up
	StateDown     State = "down"     // died after running; restarts on the next call
	StateDisabled State = "disabled" // "disabled": true in its config
)

// Status is one server's line in `agent mcp list`.
type Status struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	// Target is the command line or URL.
	Target string `json:"target"`
	Source string `json:"source,omitempty"`
	State  State  `json:"status"`
	Tools  int    `json:"tools"`
	// Deferred counts the tools that start deferred (without --defer).
	Deferred int    `json:"deferred"`
	Error    string `json:"error,omitempty"`
	// Cached: the tools are the cached list; the server has not listed its
	// own yet (still starting, or failed to).
	Cached bool `json:"cached,omitempty"`
	// Hidden are the tools the server lists that are not offered, with why
	// (not counted in Tools).
	Hidden []HiddenTool `json:"hidden,omitempty"`
	// Prompts and Resources count what the server offers besides tools
	// (resources with their templates).
	Prompts   int `json:"prompts,omitempty"`
	Resources int `json:"resources,omitempty"`
	// Protocol is the server's "protocol" setting: "auto" (the default),
	// "2025-11-25" or "2026-07-28".
	Protocol string `json:"protocol"`
	// Revision is the protocol revision the server is spoken to in, or
	// was when last started ("2025-11-25" for any before 2026-07-28); ""
	// when not known yet.
	Revision string `json:"revision,omitempty"`
}

// ToolRef is where an agent tool name points.
type ToolRef struct {
	Server string
	Tool   string
}

// Manager owns the connections to a set of MCP servers.
type Manager struct {
	opts Options
	// unsaid: servers up before Register (upUnsaid), said by it.
	unsaid []*conn
	log    *slog.Logger
	ctx    context.Context // lives until Close: stdio processes are bound to it
	cancel context.CancelFunc
	conns  []*conn
	// grace and termAfter are closeGrace and termAfter; a test sets them
	// to see which of the two ended a server.
	grace, termAfter time.Duration

	mu       sync.Mutex
	set      *tools.Set
	deferAll bool
	pending  map[string]bool // servers whose tools changed since the last Sync
	closed   bool
	linked   bool        // a tool returned a resource link (resources.go)
	links    linkOrigins // which server returned each resource link

	saves   sync.WaitGroup // catalog cache writes in flight
	sq      saveQueue      // runs them one at a time (savequeue.go)
	started sync.WaitGroup // connections Start left running in the background

	procs procs // stdio servers' running processes

	startGate chan struct{} // closed by StartDeferred (Options.DeferStart)
	startOnce sync.Once
}

// StartDeferred starts the servers waiting under Options.DeferStart; lazy
// servers (config "start") keep waiting for a call of one of their tools.
func (m *Manager) StartDeferred() { m.startOnce.Do(func() { close(m.startGate) }) }

// lazy reports whether c, its tool list cached, starts only when one of
// its tools is called: the default ("start" unset or "lazy"); "eager"
// starts it at launch (in -p mode as the first request goes out). Search
// needs only the cached list, so ten configured servers cost one process
// for a turn that calls one tool.
func (c *conn) lazy() bool { return c.cfg.Start != config.StartEager }

// startNow lets c's start go ahead if it waits (a call of one of its tools).
func (c *conn) startNow() { c.gateOnce.Do(func() { close(c.gate) }) }

// NewManager prepares connections to servers; Start connects them.
func NewManager(servers []config.MCPServer, opts Options) *Manager {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.ToolTimeout <= 0 {
		opts.ToolTimeout = DefaultToolTimeout
	}
	if opts.InitTimeout <= 0 {
		opts.InitTimeout = DefaultInitTimeout
	}
	if opts.MaxResultBytes <= 0 {
		opts.MaxResultBytes = DefaultMaxResultBytes
	}
	if opts.MaxToolResultBytes <= 0 {
		opts.MaxToolResultBytes = DefaultMaxToolResultBytes
	}
	if opts.ClientName == "" {
		opts.ClientName = "agent"
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "dev"
	}
	m := &Manager{opts: opts, log: opts.Logger, pending: map[string]bool{}, startGate: make(chan struct{}),
		grace: closeGrace, termAfter: termAfter}
	if m.log == nil {
		m.log = slog.Default()
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	seen := map[string]bool{}
	for _, s := range servers {
		if seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		m.conns = append(m.conns, &conn{m: m, cfg: s, state: StateStarting, ready: make(chan struct{}), gate: make(chan struct{}),
			configHash: ConfigHash(s, opts.Workdir), auth: newAuthorizer(s, opts.OAuth)})
	}
	return m
}

// Start connects every server concurrently, each within its timeout. A
// server that fails is a warning (returned, and sent as an event); the
// others work.
//
// Without a cache Start waits for every server. With one, a server whose
// list is cached (for its current config) has it registered at once and
// connects in the background: Start waits only for the servers it knows
// nothing of (for none with Options.Background). A call of a tool waits
// for its own server's start only. A background server that fails to start
// is reported by an event; its cached tools answer with that error.
func (m *Manager) Start(ctx context.Context) []error {
	EndLeftovers(m.opts.PidDir, m.log)
	errs := make([]error, len(m.conns))
	var wg sync.WaitGroup
	for i, c := range m.conns {
		switch {
		case c.cfg.Disabled:
			c.setState(StateDisabled, nil)
			c.markReady()
			errs[i] = fmt.Errorf("MCP server %s is disabled in %s", c.cfg.Name, c.cfg.Source)
			continue
		case c.cfg.Unavailable != "":
			errs[i] = fmt.Errorf("MCP server %s: %s", c.cfg.Name, c.cfg.Unavailable)
			c.setState(StateFailed, errors.New(c.cfg.Unavailable))
			c.markReady()
			continue
		}
		cached := c.loadCached(ctx)
		wait := !cached && !m.opts.Background
		if wait {
			wg.Add(1)
		} else {
			m.started.Add(1)
		}
		// A background start outlives Start's ctx: it ends with Close.
		cctx := ctx
		if !wait {
			cctx = context.WithoutCancel(ctx)
		}
		go func() {
			defer func() {
				if wait {
					wg.Done()
				} else {
					m.started.Done()
				}
			}()
			switch {
			case cached && c.lazy():
				// Search needs only the cached list: the server starts
				// when one of its tools is called (conn.ensure).
				select {
				case <-c.gate:
				case <-m.ctx.Done():
					c.markReady()
					return
				}
			case !wait && m.opts.DeferStart:
				select {
				case <-m.startGate:
				case <-c.gate:
				case <-m.ctx.Done():
					c.markReady()
					return
				}
			}
			// One connection at a time, as ensure dials: a call or /mcp
			// enable may have come first (Disable ends the wait for this
			// start, and Enable opens its gate), and two connections would
			// race, the first lost as "manager closed while connecting".
			c.dialMu.Lock()
			var err error
			if _, _, retry := c.current(); retry {
				err = c.connect(cctx)
			}
			c.dialMu.Unlock()
			if err != nil {
				err = &startError{server: c.cfg.Name, err: err}
				c.startFailed(err)
				if wait {
					errs[i] = err
				} else if !m.isClosed() {
					m.emit(Event{Kind: EventWarning, Server: c.cfg.Name, Text: c.startFailedText(err)})
				}
			}
			c.markReady()
		}()
	}
	wg.Wait()
	var out []error
	for i, err := range errs {
		if err != nil {
			out = append(out, err)
			m.emit(Event{Kind: EventWarning, Server: m.conns[i].cfg.Name, Text: err.Error()})
		}
	}
	return out
}

// WaitStarted starts the servers still waiting to (lazy ones, and those
// Options.DeferStart holds) and waits until every server Start left
// connecting in the background has come up or failed, or ctx ends.
func (m *Manager) WaitStarted(ctx context.Context) error {
	m.StartDeferred()
	for _, c := range m.conns {
		c.startNow()
	}
	done := make(chan struct{})
	go func() { m.started.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WaitListed waits until the first start attempt of each named server has
// ended (it listed its tools, or failed), or ctx ends. Unknown names are
// skipped. The app holds a turn's first request on it while servers with
// no cached catalog start, so their tools are in that request.
func (m *Manager) WaitListed(ctx context.Context, names []string) error {
	for _, n := range names {
		c := m.conn(n)
		if c == nil {
			continue
		}
		select {
		case <-c.ready:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Tools returns the tools of the running servers, in server order, with
// each tool's deferral decided by its server's config (and deferAll).
func (m *Manager) Tools(deferAll bool) []tools.Tool {
	var out []tools.Tool
	for _, c := range m.conns {
		out = append(out, c.agentTools(deferAll)...)
	}
	return out
}

// Register adds the servers' tools to set and remembers it for Sync.
// deferAll (--defer) defers every tool except those in a server's
// alwaysLoad; otherwise each server's "defer" setting decides.
func (m *Manager) Register(set *tools.Set, deferAll bool) error {
	m.mu.Lock()
	m.set, m.deferAll = set, deferAll
	clear(m.pending)
	unsaid := m.unsaid
	m.unsaid = nil
	m.mu.Unlock()
	// Servers that came up in the background before there was a set to
	// register with (a first run's early start, which the UI's first frame
	// does not wait for) are said now, as one coming up later is: "MCP
	// server tt is up (6 tools)". Without this, a fast server at a first
	// start was never named.
	for _, c := range unsaid {
		c.mu.Lock()
		n, running := len(c.list), c.state == StateRunning
		c.mu.Unlock()
		if running {
			m.emit(Event{Kind: EventToolsChanged, Server: c.cfg.Name, Text: upText(c.cfg.Name, n), Tools: n})
		}
	}
	for _, c := range m.conns {
		ts := c.agentTools(deferAll)
		if len(ts) == 0 {
			continue
		}
		if err := set.ReplaceServer(c.cfg.Name, nil, ts...); err != nil {
			return fmt.Errorf("register tools of MCP server %s: %w", c.cfg.Name, err)
		}
	}
	return m.syncReadResource(set)
}

// Sync applies tool list changes reported since the last call to the set
// given to Register and returns the servers whose tools changed. Call it
// before each turn: a change takes effect at the next turn, never in the
// middle of one, so the tools array stays the same within a turn.
func (m *Manager) Sync() ([]string, error) {
	m.mu.Lock()
	set, deferAll := m.set, m.deferAll
	var names []string
	for n := range m.pending {
		names = append(names, n)
	}
	clear(m.pending)
	m.mu.Unlock()
	if set == nil {
		return nil, nil
	}
	slices.Sort(names)
	var errs []error
	var changed []string
	for _, n := range names {
		c := m.conn(n)
		if c == nil {
			continue
		}
		// A server queued by a restart or a reconnect often lists what it
		// listed before: then there is no change to report.
		before := registered(set, n)
		if err := set.ReplaceServer(n, nil, c.agentTools(deferAll)...); err != nil {
			errs = append(errs, fmt.Errorf("update tools of MCP server %s: %w", n, err))
		}
		if registered(set, n) == before {
			continue
		}
		changed = append(changed, n)
	}
	if len(names) > 0 {
		_, had := set.Lookup(ReadResourceTool)
		errs = append(errs, m.syncReadResource(set))
		if _, has := set.Lookup(ReadResourceTool); has != had && len(changed) == 0 {
			changed = names // read_resource came or went with these servers' resources
		}
	}
	return changed, errors.Join(errs...)
}

// registered is what the set holds of server, as one comparable string:
// each tool's names, descriptions, schema and annotations, its set (active
// or deferred), and the tools quarantined with their problem.
func registered(set *tools.Set, server string) string {
	var b bytes.Buffer
	_, active, deferred := set.Snapshot()
	write := func(mark string, t tools.Tool) {
		if t.Server != server {
			return
		}
		ann, _ := json.Marshal(t.Annotations)
		fmt.Fprintf(&b, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00", mark, t.Name, t.Orig, t.Description, t.ServerDescription, t.Schema, ann)
	}
	for _, t := range active {
		write("a", t)
	}
	for _, t := range deferred {
		write("d", t)
	}
	for _, q := range set.Quarantined() {
		write("q"+q.Problem, q.Tool)
	}
	return b.String()
}

// Lookup maps an agent tool name back to its server and the server's own
// tool name.
func (m *Manager) Lookup(name string) (ToolRef, bool) {
	for _, c := range m.conns {
		if orig, ok := c.lookup(name); ok {
			return ToolRef{Server: c.cfg.Name, Tool: orig}, true
		}
	}
	return ToolRef{}, false
}

// Status reports every server, in the order given to NewManager.
func (m *Manager) Status() []Status {
	out := make([]Status, 0, len(m.conns))
	for _, c := range m.conns {
		out = append(out, c.status())
	}
	return out
}

// registered reports whether Register has handed the tools to a set, after
// which a server's new list waits for Sync.
func (m *Manager) registered() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.set != nil
}

// upUnsaid remembers c, up in the background before Register, to be said
// by Register; it reports false, and remembers nothing, when the set is
// registered already (the caller says it).
func (m *Manager) upUnsaid(c *conn) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.set != nil {
		return false
	}
	m.unsaid = append(m.unsaid, c)
	return true
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

func (m *Manager) conn(name string) *conn {
	for _, c := range m.conns {
		if c.cfg.Name == name {
			return c
		}
	}
	return nil
}

// toolsChanged queues a server for the next Sync.
func (m *Manager) toolsChanged(server string) {
	m.mu.Lock()
	m.pending[server] = true
	m.mu.Unlock()
}

func (m *Manager) emit(e Event) {
	m.log.Info("mcp event", "kind", e.Kind, "server", e.Server, "text", e.Text)
	if m.opts.OnEvent != nil {
		m.opts.OnEvent(e)
	}
}

// deferred decides one tool's set: alwaysLoad wins, then --defer, then the
// server's "defer" setting.
func deferred(cfg config.MCPServer, tool string, deferAll bool) bool {
	if slices.Contains(cfg.AlwaysLoad, tool) {
		return false
	}
	if deferAll {
		return true
	}
	d, _ := cfg.Defer.Defers(tool)
	return d
}
