package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/internal/starttrace"
	"github.com/agent-dev/agent/tools/mcp/oauth"
)

// rawTool is what of a listed tool is for the model: the name, the
// description and the input schema exactly as the server sent it.
type rawTool struct {
	Name        string
	Description string
	Schema      json.RawMessage
	// Tokens is the definition's count when the catalog cache knew it.
	Tokens int
	// Checked: the schema passed schema.Check when the list was cached.
	Checked bool
	// Meta is the rest of the definition the agent uses (toolmeta.go):
	// annotations, outputSchema, execution.taskSupport; nil when none.
	Meta *toolMeta
}

// serverInfo is what initialize told about the server.
type serverInfo struct {
	Name, Version, Instructions string
}

// conn is one server's connection and its current tool list.
type conn struct {
	m   *Manager
	cfg config.MCPServer

	mu       sync.Mutex
	cl       *client.Client
	proc     *proc // the running stdio server's process
	state    State
	err      error
	list     []rawTool
	names    map[string]string // agent name -> server's name
	listSeq  uint64            // sequence of the installed list
	gen      uint64            // bumps per connection attempt
	fails    int
	nextTry  time.Time
	stderr   *tail
	info     string // the server's description for search
	everUp   bool
	listMu   sync.Mutex // orders tools/list requests of this server
	listNext uint64     // guarded by listMu
	// hdr: the x-mcp-header verdicts of the tools that carry one
	// (mcpheaders.go), under hdrMu: hiddenReason is asked with mu held.
	hdrMu sync.Mutex
	hdr   map[string]headerVerdict
	// The refresh of connection refreshGen (refreshes, under mu): a
	// tools/list_changed while it runs sets refreshAgain, and it lists
	// once more, not once per notification (toollist.go).
	refreshGen   uint64
	refreshing   bool
	refreshAgain bool
	// changedStarting: a tools/list_changed came before the connection
	// was up; it lists once more when it is (queueRefresh).
	changedStarting bool
	// noTools: the server's initialize declared no tools capability (a
	// server of resources or prompts); its refusal of tools/list is an
	// empty list, not a failed start.
	noTools atomic.Bool
	// era: the protocol revision the server is known to speak (era.go),
	// an era held in an int32.
	era atomic.Int32
	// bothEras: the server's server/discover, on this connection, listed
	// revisions of both eras (protocol.go's protocolHint).
	bothEras atomic.Bool
	pages    listPages  // tools arrays read past mcp-go (listpages.go)
	dialMu   sync.Mutex // one (re)connection at a time
	reqs     reqConn    // whose server requests are answered (requests.go)
	// inflight counts, per client, the requests in flight that a lost
	// session has sent again (conn.use), so that the client is closed
	// only after them (markDownDrained).
	inflight map[*client.Client]*inflight

	// The catalog cache (cache.go). cached: the list is the cached one
	// (the server has not listed its tools in this run yet).
	configHash string
	serverInfo serverInfo
	cached     bool
	cachedAt   time.Time
	cachedHash string
	// What the cache holds, so an unchanged list is not written again.
	cachedList     []rawTool
	cachedListHash string // sha256 of the raw tools/list pages cachedList came from
	cachedInfo     serverInfo
	cachedDesc     string
	cachedExtras   []byte // resources and prompts as cached (cachedExtras JSON)
	// ready is closed when the first connection attempt has ended: a call
	// of a tool waits for its own server's start, and only for it.
	ready     chan struct{}
	readyOnce sync.Once
	// gate, closed by startNow, holds the start of a server whose list is
	// cached until one of its tools is called (lazy, or Options.DeferStart).
	gate     chan struct{}
	gateOnce sync.Once

	// auth signs in to a remote server (nil: none; signin.go).
	auth *oauth.Authorizer

	// ex holds resources, prompts and capabilities (extras.go).
	ex extras
	// waits are the URL elicitations a call waits on (urlelicit.go).
	waits elicitWaits
	// tasks routes task status notifications to the calls on them (tasks.go).
	tasks taskWatch
}

// gateOpen reports whether startNow let c's start go ahead.
func (c *conn) gateOpen() bool {
	select {
	case <-c.gate:
		return true
	default:
		return false
	}
}

// markReady ends the wait of calls made while the server was starting.
func (c *conn) markReady() { c.readyOnce.Do(func() { close(c.ready) }) }

var rpcSeq atomic.Int64

// errExited ends a handshake whose process exited.
var errExited = errors.New("the server exited")

// connectOnce starts the server, performs the handshake and lists its
// tools, all within the server's start timeout (connect, in signin.go,
// adds the sign-in a remote server may ask for).
func (c *conn) connectOnce(parent context.Context) error {
	timeout := c.cfg.Timeout
	if timeout <= 0 {
		timeout = c.m.opts.StartTimeout
	}
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()

	c.mu.Lock()
	c.gen++
	gen := c.gen
	c.mu.Unlock()

	starttrace.Markf("mcp connect", c.cfg.Name)
	stderr := newTail(4096)
	cl, p, err := c.newClient(stderr)
	if err != nil {
		return err
	}
	if p == nil {
		// A remote server has no stderr to wait for (markDown's settle).
		stderr.finish()
	}
	var bad <-chan string
	var exited <-chan struct{}
	if p != nil {
		bad, exited = p.bad, p.exited
	}
	cl.OnNotification(func(n mcpgo.JSONRPCNotification) {
		if n.Method == mcpgo.MethodNotificationToolsListChanged {
			c.queueRefresh(gen, cl) // lists in a goroutine: this is the transport's reader
		}
	})

	type result struct {
		list []rawTool
		info string
		si   serverInfo
		seq  uint64
		hash string
		err  error
	}
	c.watch(gen, cl)
	done := make(chan result, 1)
	go func() {
		var r result
		r.info, r.si, r.err = c.handshake(ctx, cl, p, stderr)
		starttrace.Markf("mcp initialized", c.cfg.Name)
		if r.err == nil {
			c.awaitListen(ctx, c.listen(gen, cl))
			// Resources, prompts and the log level are asked for while
			// the tools are listed, not after: a first run waits for one
			// round trip to each server, not four.
			// A server that offers none of them (most) costs no
			// goroutine: listExtras only records its capabilities.
			extras := make(chan struct{})
			if c.asksExtras(cl) {
				go func() {
					defer close(extras)
					c.listExtras(ctx, cl)
				}()
			} else {
				c.listExtras(ctx, cl)
				close(extras)
			}
			r.list, r.seq, r.hash, r.err = c.listTools(ctx, cl)
			starttrace.Markf("mcp listed", c.cfg.Name)
			<-extras
			starttrace.Markf("mcp extras", c.cfg.Name)
		}
		done <- r
	}()
	var r result
	finished, killed := true, false
	select {
	case r = <-done:
	case <-ctx.Done():
		r.err, finished = ctx.Err(), false
	case line := <-bad:
		r.err, finished = fmt.Errorf("the server wrote an MCP message that is not JSON on stdout: %q (a stdio server must write only MCP messages there, one per line)", line), false
	case <-exited:
		r.err, finished = errExited, false
	}
	if !finished {
		// Close only after the handshake returns (its requests end with
		// ctx or the closed transport): mcp-go's transports do not guard
		// Start against Close.
		go func() { <-done; _ = cl.Close() }()
		if p != nil && !errors.Is(r.err, context.DeadlineExceeded) && !errors.Is(r.err, context.Canceled) && !errors.Is(r.err, errExited) {
			p.kill() // a broken server: the handshake ends now
			killed = true
		}
	}
	if r.err != nil {
		if finished {
			go cl.Close()
		}
		if c.cfg.Type == config.MCPStdio {
			stderr.settle()
		}
		if p != nil && !killed && (errors.Is(r.err, errExited) || isTransportError(r.err)) {
			// A closed transport is often a process that exited: say how.
			select {
			case <-p.exited:
			case <-time.After(500 * time.Millisecond):
			}
			if st, fromOutside := p.ended(); st != "" {
				if fromOutside {
					stderr = nil // its banner, not why it ended
				}
				return withStderr(fmt.Errorf("the server exited (%s) before it was ready", st), stderr)
			}
		}
		if errors.Is(r.err, context.DeadlineExceeded) && parent.Err() == nil {
			return withStderr(p.withNoise(fmt.Errorf("no answer within %s", timeout)), stderr)
		}
		return withStderr(p.withNoise(r.err), stderr)
	}

	c.mu.Lock()
	if c.m.isClosed() || c.gen != gen {
		c.mu.Unlock()
		go cl.Close()
		return errors.New("manager closed while connecting")
	}
	c.cl, c.proc, c.stderr, c.state, c.err, c.fails = cl, p, stderr, StateRunning, nil, 0
	oldInfo := c.info
	if c.cfg.Description != "" {
		c.info = c.cfg.Description
	} else {
		c.info = r.info
	}
	c.serverInfo = r.si
	wasUp, fromCache := c.everUp, c.cached
	c.everUp = true
	c.mu.Unlock()
	c.learnEra(cl) // before saveCached, which keeps it
	// A restarted server may offer other tools than before: that is a
	// change like tools/list_changed. So is a list that differs from the
	// cached one the run started with, or the first list of a server the
	// run did not wait for.
	if !c.install(r.list, r.seq, wasUp || fromCache || c.m.registered()) && fromCache && oldInfo != c.info {
		c.m.toolsChanged(c.cfg.Name) // only the description search uses changed
	}
	c.mu.Lock()
	again := c.changedStarting
	c.changedStarting = false
	c.mu.Unlock()
	if again {
		c.queueRefresh(gen, cl) // the change said while it started
	}
	starttrace.Markf("mcp installed", c.cfg.Name)
	c.saveCached(r.list, r.hash, r.si, r.info)
	if c.cfg.Type == config.MCPStdio {
		go c.watchStderr(cl, p, stderr)
	}
	return nil
}

// handshake starts the transport and initializes the session. Initialize
// has its own short timeout (Options.InitTimeout), counted for a stdio
// server from its first output: a server still being fetched (npx) is
// silent, one that talks but does not answer is broken.
func (c *conn) handshake(ctx context.Context, cl *client.Client, p *proc, stderr *tail) (string, serverInfo, error) {
	// The transport's Start context is the stdio process's lifetime and the
	// SSE stream's: it must be the manager's, not this attempt's timeout.
	if err := cl.Start(c.m.ctx); err != nil {
		if c.cfg.Type == config.MCPStdio {
			return "", serverInfo{}, err // already says which command failed and why
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			return "", serverInfo{}, refusedError{url: c.cfg.URL, err: err}
		}
		return "", serverInfo{}, fmt.Errorf("connect to %s: %w", c.cfg.URL, err)
	}
	c.serveRequests(cl) // after Start, which installs mcp-go's handler (requests.go)
	var req mcpgo.InitializeRequest
	if !c.probes() {
		// Unset, mcp-go asks server/discover first (2026-07-28) and
		// sends initialize when that is refused (era.go).
		req.Params.ProtocolVersion = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
	}
	req.Params.ClientInfo = mcpgo.Implementation{Name: c.m.opts.ClientName, Version: c.m.opts.ClientVersion}
	initTimeout := c.m.opts.InitTimeout
	if c.cfg.Timeout > initTimeout {
		// The server's own start timeout, when longer, is initialize's
		// too: that is what errInit tells a user whose server is slow
		// to start to set.
		initTimeout = c.cfg.Timeout
	}
	errInit := fmt.Errorf("initialize: no answer within %s (a server that needs longer to start can be given a longer \"timeout\")", initTimeout)
	var ictx context.Context
	var cancel context.CancelFunc
	if p == nil {
		// A remote server: the timeout runs from now, on the context's
		// own timer rather than a goroutine waiting on one.
		ictx, cancel = context.WithTimeoutCause(ctx, initTimeout, errInit)
	} else {
		var cancelCause context.CancelCauseFunc
		ictx, cancelCause = context.WithCancelCause(ctx)
		cancel = func() { cancelCause(nil) }
		// A process's timeout runs from its first output
		// (Options.InitTimeout): what it does before is not counted.
		go func() {
			select {
			case <-p.talked:
			case <-ictx.Done():
				return
			}
			select {
			case <-time.After(initTimeout):
				cancelCause(errInit)
			case <-ictx.Done():
			}
		}()
	}
	defer cancel()
	res, err := cl.Initialize(ictx, req)
	if err != nil {
		if perr := c.pinnedRefusal(err); perr != nil {
			return "", serverInfo{}, perr
		}
		if context.Cause(ictx) == errInit && ctx.Err() == nil {
			return "", serverInfo{}, errInit
		}
		if c.cfg.Type != config.MCPStdio && errors.Is(err, syscall.ECONNREFUSED) {
			return "", serverInfo{}, refusedError{url: c.cfg.URL, err: err}
		}
		return "", serverInfo{}, fmt.Errorf("initialize: %w", err)
	}
	c.noTools.Store(res.Capabilities.Tools == nil)
	info := res.ServerInfo.Title
	if res.Instructions != "" {
		info = firstLine(res.Instructions, 300)
	}
	return info, serverInfo{Name: res.ServerInfo.Name, Version: res.ServerInfo.Version, Instructions: res.Instructions}, nil
}

// refusedError is a remote server that nothing answers for: one line
// naming the URL, instead of the transport's chain ("transport error:
// failed to send request: failed to send request: Post ...: dial tcp ...:
// connect: connection refused"), which it keeps as its cause.
type refusedError struct {
	url string
	err error
}

func (e refusedError) Error() string {
	return fmt.Sprintf("nothing answers at %s (connection refused): start the server, or check its \"url\"", e.url)
}

func (e refusedError) Unwrap() error { return e.err }

// newClient builds the client for the server's transport, unstarted; a
// stdio server's process is started here.
func (c *conn) newClient(stderr *tail) (*client.Client, *proc, error) {
	// A server whose era is known 2025-11-25 (or a stdio server not known
	// to be of 2026-07-28) is not probed: the legacy handshake skips
	// server/discover (era.go).
	probe := c.probes()
	opts := c.clientOptions()
	if !probe {
		opts = append([]client.ClientOption{client.WithProtocolVersion(mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)}, opts...)
	}
	switch c.cfg.Type {
	case config.MCPStdio:
		p, tr, err := c.spawn(stderr)
		if err != nil {
			return nil, nil, err
		}
		tr.guard = c.guard()
		return client.NewClient(tr, opts...), p, nil
	case config.MCPHTTP:
		hc := c.httpClient()
		tap := &sessionTap{base: hc.Transport}
		hc.Transport = tap
		topts := []transport.StreamableHTTPCOption{transport.WithHTTPHeaders(c.cfg.Headers),
			transport.WithHTTPBasicClient(hc), transport.WithHTTPLogger(c.m.log)}
		// The GET stream is how a streamable HTTP server of 2025-11-25
		// sends tools/list_changed outside of a request; the transport
		// opens it only on a session of that revision (2026-07-28 has
		// subscriptions/listen instead: era.go).
		topts = append(topts, transport.WithContinuousListening()) //nolint:staticcheck // servers of protocol versions before 2026-07-28 still send list_changed on the GET stream
		tr, err := transport.NewStreamableHTTP(c.cfg.URL, topts...)
		if err != nil {
			return nil, nil, fmt.Errorf("streamable HTTP transport for %s: %w", c.cfg.URL, err)
		}
		var ti transport.Interface = tr
		if probe {
			ti = &eitherEra{StreamableHTTP: tr, guard: c.guard()}
		}
		cl := client.NewClient(ti, opts...)
		tap.lost = func(status int) {
			c.markDownDrained(cl, fmt.Errorf("the server did not accept the session on its GET stream (HTTP %d)", status), status)
			_, _ = c.ensure(c.m.ctx)
		}
		return cl, nil, nil
	case config.MCPSSE:
		tr, err := transport.NewSSE(c.cfg.URL, transport.WithHeaders(c.cfg.Headers), transport.WithSSELogger(c.m.log),
			transport.WithHTTPClient(c.sseClient()), transport.WithResponseTimeout(c.sseResponseTimeout()))
		if err != nil {
			return nil, nil, fmt.Errorf("SSE transport for %s: %w", c.cfg.URL, err)
		}
		cl := client.NewClient(tr, opts...)
		cl.OnConnectionLost(func(err error) { c.markDown(cl, fmt.Errorf("SSE stream lost: %w", err)) })
		return cl, nil, nil
	}
	return nil, nil, fmt.Errorf("unknown transport %q", c.cfg.Type)
}

// command builds a stdio server's process.
func (c *conn) command(ctx context.Context) (*exec.Cmd, error) {
	command, args := c.cfg.Command, c.cfg.Args
	path, err := exec.LookPath(command)
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return nil, fmt.Errorf("command %q not found on PATH", command)
	case errors.Is(err, fs.ErrNotExist):
		// A path: exec's own words said it three times ("command
		// \"/x\": exec: \"/x\": stat /x: no such file or directory").
		where := ""
		if strings.ContainsRune(c.cfg.Source, os.PathSeparator) {
			where = " in " + c.cfg.Source
		}
		return nil, fmt.Errorf("command %q does not exist: check the server's \"command\"%s", command, where)
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("command %q is not an executable file: check the server's \"command\" (or chmod +x it)", command)
	case err != nil:
		return nil, fmt.Errorf("command %q: %w", command, err)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = os.Environ()
	for _, k := range sortedKeys(c.cfg.Env) {
		cmd.Env = append(cmd.Env, k+"="+c.cfg.Env[k])
	}
	cmd.Dir = c.cfg.Cwd
	if cmd.Dir == "" {
		cmd.Dir = c.m.opts.Workdir
	}
	ownProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	return cmd, nil
}

func (c *conn) status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Status{Name: c.cfg.Name, Transport: c.cfg.Type, Source: c.cfg.Source, State: c.state, Tools: len(c.list), Cached: c.cached,
		Protocol: c.cfg.ProtocolSetting(), Revision: c.revision()}
	if s.State == StateStarting && c.cached && c.lazy() && !c.gateOpen() {
		s.State = StateIdle
	}
	c.ex.mu.Lock()
	s.Prompts, s.Resources = len(c.ex.prompts), len(c.ex.resources)+len(c.ex.templates)
	c.ex.mu.Unlock()
	for _, t := range c.list {
		if r := c.hiddenReason(t); r != "" {
			s.Tools--
			s.Hidden = append(s.Hidden, HiddenTool{Name: t.Name, Reason: r})
		}
	}
	if c.cfg.Type == config.MCPStdio {
		s.Target = strings.Join(append([]string{c.cfg.Command}, c.cfg.Args...), " ")
	} else {
		s.Target = c.cfg.URL
	}
	for _, t := range c.list {
		if deferred(c.cfg, t.Name, false) {
			s.Deferred++
		}
	}
	if c.err != nil {
		s.Error = c.err.Error()
	}
	return s
}

func (c *conn) setState(st State, err error) {
	c.mu.Lock()
	c.state, c.err = st, err
	c.mu.Unlock()
}

func (c *conn) startTimeout() time.Duration {
	if c.cfg.Timeout > 0 {
		return c.cfg.Timeout
	}
	return c.m.opts.StartTimeout
}

// watchStderr notices a stdio server's exit as soon as it happens (its
// stderr ends), not only at the next call, so the UI can say so.
func (c *conn) watchStderr(cl *client.Client, p *proc, t *tail) {
	<-t.done
	if p != nil {
		// Its stderr closes a moment before its exit status is known:
		// without it a killed server's notice named no signal.
		select {
		case <-p.exited:
		case <-time.After(500 * time.Millisecond):
		}
	}
	c.markDown(cl, errors.New("the server process exited"))
}

// markDown records that the connection cl died. A report about an older
// connection, or made while closing, is ignored.
func (c *conn) markDown(cl *client.Client, cause error) { c.markDownDrained(cl, cause, 0) }

// markDownDrained is markDown. With lost, the HTTP status with which the
// server rejected cl's session (a restarted server forgot it), cl is closed
// once the requests in flight on it that may be resent (conn.use) have
// their answers, not at once, and the user is told it connects again.
func (c *conn) markDownDrained(cl *client.Client, cause error, lost int) {
	if c.m.isClosed() {
		return
	}
	c.mu.Lock()
	stderr := c.stderr
	c.mu.Unlock()
	stderr.settle()
	c.mu.Lock()
	if c.cl != cl || c.state != StateRunning {
		c.mu.Unlock()
		return
	}
	quote := c.stderr
	if c.proc != nil {
		st, fromOutside := c.proc.ended()
		if st != "" {
			cause = fmt.Errorf("%w: %s", cause, st)
		}
		if fromOutside {
			quote = nil
		}
	}
	err := withStderr(cause, quote)
	c.cl, c.proc, c.state, c.err = nil, nil, StateDown, err
	c.mu.Unlock()
	c.endRequests(cl)
	if lost != 0 {
		// Closing cl cancels its requests in flight: those on the lost
		// session are to get their own rejection, and be sent again.
		go func() {
			select {
			case <-c.drained(cl):
			case <-c.m.ctx.Done():
			}
			_ = cl.Close()
		}()
	} else {
		go cl.Close()
	}
	text := fmt.Sprintf("MCP server %s stopped: %v; it will be restarted on the next call of one of its tools", c.cfg.Name, err)
	if lost != 0 {
		// It is started again at once (renewSession, the GET stream's
		// tap), and the rejected requests sent again.
		text = fmt.Sprintf("MCP server %s did not accept its session (HTTP %d), as after a restart: connecting with a new session", c.cfg.Name, lost)
	}
	c.m.emit(Event{Kind: EventServerDown, Server: c.cfg.Name, Text: text})
}

func (c *conn) close() {
	c.mu.Lock()
	cl := c.cl
	c.cl = nil
	if c.state == StateRunning || c.state == StateStarting {
		c.state = StateDown
		c.err = errors.New("closed")
	}
	c.mu.Unlock()
	if cl != nil {
		c.endRequests(cl)
		_ = cl.Close()
	}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
