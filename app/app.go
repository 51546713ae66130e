package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/config/agents"
	"github.com/agent-dev/agent/config/commands"
	"github.com/agent-dev/agent/demo"
	"github.com/agent-dev/agent/internal/starttrace"
	"github.com/agent-dev/agent/providers/registry"
	"github.com/agent-dev/agent/store"
	"github.com/agent-dev/agent/telemetry"
	"github.com/agent-dev/agent/tools"
	mcptools "github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/permission"
	"github.com/agent-dev/agent/tools/search"
)

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Options are what Open needs besides the settings.
type Options struct {
	Getenv  func(string) string
	Version string // the MCP client version
	// Title names a new session (print mode's prompt).
	Title string
	// Interactive: the TUI, whose first frame waits for no MCP server.
	Interactive bool
	// SignIn, when set, is where a remote MCP server's sign-in URL is
	// printed as the browser opens it (-p); unset, a server that needs a
	// sign-in fails to start, naming `agent mcp login`.
	SignIn io.Writer
	// NoMCP starts no MCP server: agent sessions compact needs none. The
	// servers' cached catalogs still render the tools array, which the
	// history's calls refer to (Responses refuses a call of a tool the
	// request does not define).
	NoMCP bool
	// Yes: print mode's --yes, which also accepts MCP elicitations with
	// their defaults and allows sampling.
	Yes bool
}

// Alerts carries errors from outside a turn to the TUI (nil unless
// Interactive): a server named with --mcp that fails to start.
func (a *App) Alerts() <-chan string { return a.alerts }

// App is one wired conversation: the store (new or resumed session), the
// provider, the MCP tools with their deferral, the search engine and the
// core session. Its methods are the API every front end uses.
type App struct {
	settings Settings
	opts     Options
	db       *store.DB
	mcp      *mcptools.Manager
	session  *agent.Session
	note     string   // the status-bar note (the demo says so there)
	warnings []string // shown once at start
	// startNews is what the SessionStart hooks said as the run opened
	// (their systemMessage), which -p prints as the other hooks' is.
	startNews []string
	// configured are the MCP servers of the config files, read once.
	configured map[string]config.MCPServer
	// listing: the App of agent tools, which reads the catalog cache as
	// the listing commands do (listing.go).
	listing bool

	mu      sync.Mutex
	stored  *store.Session
	label   string // the provider as the user named it ("ollama", "demo")
	notices []Notice
	hash    string // the last request's tools hash
	resumed string // the tools hash recorded last before this resume
	saved   savedTokens
	spend   Spend
	noticed int // how many notices NewNotices handed out
	// cmdNamed is the provider a custom command's model: switched the
	// latest turn to: its adapter's name (what a usage event's Served
	// says) and its name as the command gave it. It outlives the turn's
	// undo, so a result read after the turn ended still names it.
	cmdNamed struct{ adapter, label string }
	// capture holds the events of a server while /mcp ACTION NAME runs
	// on it: its reply says them, once (MCPControl).
	capture map[string][]mcptools.Event
	alerts  chan string
	// perms are the permission rules and mode (permissions.go);
	// approvalChecked says their patterns were checked against the tools.
	perms           perms
	approvalChecked bool
	syncMu          sync.Mutex // serialises MCP syncs
	// skipWait, while a turn waits for servers with no cached catalog, is
	// closed by SkipCatalogWait; startWait bounds that wait (0: default).
	skipWait  chan struct{}
	startWait time.Duration
	// remembered are the servers a resumed session ran with, gone those of
	// them that could not come back; serverDefs are this run's, stored
	// with the session.
	remembered []store.MCPServerDef
	gone       []string
	serverDefs []store.MCPServerDef
	closers    []func()
	isResume   bool
	// bg counts the background work Close waits for (token counting).
	bg    sync.WaitGroup
	asker Asker // answers MCP servers' requests (mcphost.go)
	// instr are the instruction files in the system prompt, read when the
	// session started or resumed (instructions.go).
	instr Instructions
	// commands are the custom commands (commands.go), read with instr.
	commands *commands.Set
	// turnEmit emits into the running turn's stream (nil between turns).
	turnEmit func(agent.Event)
	// subs are the callable subagent profiles (run_agent); kids routes
	// the approvals
	// running subagents asked, by id (subagent.go). isSub: this is a
	// subagent's session (run or resumed), which runs none of its own.
	subs  []agents.Profile
	isSub bool
	kids  map[string]kidCall
	// hooks are the configured hooks (nil: none; hooks.go).
	hooks *sessionHooks
	// tel is the OpenTelemetry export, nil when off (telemetry.go); turn
	// follows the running turn (nil between turns or when off).
	tel  *telemetry.Telemetry
	turn *telemetry.Turn
	// early is the MCP start Open began before the database existed
	// (earlymcp.go), until attachMCP takes it; hostReady is closed when
	// Open has built the session or failed (its servers' requests wait).
	early     *earlyMCP
	hostReady chan struct{}
	hostOK    bool
	// created is a first -p run's session, created while its servers
	// listed (earlymcp.go), until Open takes it; createErr is why it was
	// not, said once the servers' own errors have been.
	created   *store.Session
	createErr error
	// dbWrite orders the catalog cache's writes and the session's
	// creation (storeCatalog).
	dbWrite sync.Mutex
}

type savedTokens struct {
	key   string
	value int
	// counting is the key being counted in the background.
	counting string
}

// Open builds the runtime from s: it opens the store, resumes or creates
// the session (a resumed session's stored settings take the place of what
// no flag gave), builds the provider, starts the MCP servers and applies
// --defer.
func Open(ctx context.Context, s Settings, o Options) (_ *App, err error) {
	a := &App{opts: o, hostReady: make(chan struct{})}
	if o.Interactive {
		a.alerts = make(chan string, 16)
	}
	defer func() {
		if err != nil {
			if a.early != nil {
				a.early.close()
			}
		}
		a.hostOK = err == nil // else the early servers' requests are declined
		close(a.hostReady)
		if err != nil {
			a.dropCreated(ctx)
			a.Close()
		}
	}()
	if s.Resume == "" && !s.Continue && !s.Demo && !o.NoMCP && dbAbsent(s.DBPath) {
		// A first run: every server is waited for; they connect while
		// the database is created.
		a.settings = s
		a.early = a.startMCPEarly(ctx)
	}
	starttrace.Mark("db open begin")
	testHookOpenDB()
	a.db, err = openDB(ctx, s.DBPath)
	if a.early != nil {
		a.early.dbReady(a.db, &a.dbWrite)
		// The catalogs are written once the first request has gone out (the
		// session's AfterSend), while the run waits for its answer:
		// a first run's eleven catalogs took ~10 ms of CPU, on the two
		// cores the request was being built on; written as the request
		// went out (BeforeSend), they took ~4 ms of CPU beside its
		// encoding and sending, and it reached the provider ~1 ms later
		// than a warm run's. A run with a UI, which may wait long for its
		// first prompt, writes them at Open's return; so does an Open that
		// failed; Close lets them go too.
		defer func() {
			if err != nil || a.opts.Interactive {
				a.early.release()
			}
		}()
	}
	if err != nil {
		return nil, err
	}
	starttrace.Mark("db open end")
	a.closers = append(a.closers, func() { closeDB(a.db) })
	if e := a.early; e != nil && e.m != nil {
		// Closed before the database, which its cache writes need.
		a.closers = append(a.closers, func() {
			e.release()
			_ = e.m.Close()
		})
	}
	var resumed *store.Session
	switch {
	case s.Resume != "":
		if resumed, err = a.db.OpenSession(ctx, s.Resume); err != nil {
			return nil, sessionErr(s.Resume, err)
		}
	case s.Continue:
		if resumed, err = a.db.Latest(ctx, s.Workdir); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return nil, Usagef("no session to continue in %s: start one without --continue", s.Workdir)
			}
			return nil, fmt.Errorf("find the newest session: %w", err)
		}
	}
	if resumed != nil {
		a.closers = append(a.closers, func() { _ = resumed.Close() })
		if err := demoCanContinue(s.Demo, resumed.Meta()); err != nil {
			return nil, usage(err)
		}
		a.isResume = true
		// The session's agent profile comes back first; what was stored
		// (what was sent) then wins over it.
		if st := resumed.Meta().Settings; s.Flags.Agent == "" && st.Agent != "" {
			if err := s.useProfile(st.Agent); err != nil {
				a.warnings = append(a.warnings, fmt.Sprintf("this session used the agent profile %s, which cannot be loaded now (%v): its tool list and approvals are not applied", st.Agent, err))
			}
		}
		s.restore(resumed.Meta())
		if err := s.Validate(); err != nil {
			return nil, err
		}
		a.remembered = resumed.Meta().Settings.Servers
		a.isSub = resumed.Meta().ParentID != ""
	}
	if a.early == nil {
		// (An early start read them already; its goroutine reads them.)
		a.settings = s
	}
	if err := a.build(ctx); err != nil {
		return nil, err
	}
	starttrace.Mark("build end")
	a.startTelemetry(ctx)
	st := a.session
	meta := a.sessionMeta()
	if resumed != nil {
		hist, err := resumed.LoadRepaired(ctx)
		if err != nil {
			return nil, fmt.Errorf("load session %s: %w", resumed.ID(), err)
		}
		st.Reset(hist)
		// A compacted session sends its compacted form, as before.
		if cp, err := resumed.LastCompaction(ctx); err != nil {
			return nil, fmt.Errorf("load session %s: %w", resumed.ID(), err)
		} else if cp != nil {
			st.SetCompaction(cp)
		}
		old := resumed.Meta()
		meta.ID, meta.Title, meta.Created = old.ID, old.Title, old.Created
		if w := a.noteInstructions(&meta, &old); w != "" {
			a.warnings = append(a.warnings, w)
		}
		if err := resumed.UpdateMeta(ctx, meta); err != nil {
			return nil, fmt.Errorf("update session %s: %w", resumed.ID(), err)
		}
		if err := a.useStore(resumed); err != nil {
			return nil, err
		}
		a.checkReplay(ctx, resumed)
		a.loadSpend(ctx, resumed.ID())
		a.hookStarted(a.hooks.sessionStart(ctx, "resume"))
		return a, nil
	}
	if a.createErr != nil {
		return nil, a.createErr
	}
	ss := a.created
	if ss == nil {
		if ss, err = a.createSession(ctx, meta); err != nil {
			return nil, err
		}
	}
	starttrace.Mark("session created")
	a.closers = append(a.closers, func() { _ = ss.Close() })
	a.created = nil // Open's from here on: kept whatever follows
	if err := a.useStore(ss); err != nil {
		return nil, err
	}
	a.hookStarted(a.hooks.sessionStart(ctx, "startup"))
	return a, nil
}

// hookStarted keeps what SessionStart said as the run opened: its notes
// with the start-up warnings, its messages as news (the TUI says them as
// its other notices), kept for -p too, which prints them and has them in
// its result's warnings as it has the other hooks'.
func (a *App) hookStarted(notes, msgs []string) {
	a.warnings = append(a.warnings, notes...)
	a.startNews = append(a.startNews, msgs...)
	for _, m := range msgs {
		a.News(m)
	}
}

// sessionMeta is what a new or resumed session stores of this run (after
// build): the settings, the provider, the model and the servers.
func (a *App) sessionMeta() store.SessionMeta {
	st := a.session
	p, model := st.Target()
	meta := store.SessionMeta{Workdir: a.settings.Workdir, Provider: a.label, API: p.API(), Model: model, Settings: a.settings.stored(st.TurnContext().ProviderTools)}
	meta.Settings.Servers = a.keptServers()
	return meta
}

// createSession stores a new session with meta (sessionMeta), titled by
// the run (print mode's prompt).
func (a *App) createSession(ctx context.Context, meta store.SessionMeta) (*store.Session, error) {
	meta.Title = a.opts.Title
	a.noteInstructions(&meta, nil)
	a.dbWrite.Lock()
	ss, err := a.db.Create(ctx, meta)
	a.dbWrite.Unlock()
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	return ss, nil
}

// build makes the provider, the session and its tools from the settings.
func (a *App) build(ctx context.Context) error {
	s := &a.settings
	pts, err := parseProviderTools(s.ProviderTools)
	if err != nil {
		return err
	}
	if s.Defer == "true" {
		pts = deferConnectors(pts)
	}
	var kit *demo.Kit
	var p agent.Provider
	var defModel string
	if s.Demo {
		// The demo is a demo of the program: only --demo reaches it.
		if kit, err = demo.New(demo.Options{}); err != nil {
			return err
		}
		p, defModel, s.Provider, s.Model, s.Search = kit.Provider, kit.Model, "demo", "", "client"
		if s.System == "" {
			s.System = kit.System
		}
		a.note = kit.Note
		if s.Flags.MCPConfig != "" || len(s.Flags.MCP) > 0 {
			// Its tools are a bundled catalog: a server named for it was
			// dropped without a word (a broken --mcp-config file too).
			a.warnings = append(a.warnings, "--demo runs on its bundled catalog: --mcp and --mcp-config are not used (run without --demo to connect MCP servers)")
		}
	} else if p, defModel, err = NewProvider(*s, s.Provider, a.opts.Getenv); err != nil {
		return err
	}
	starttrace.Mark("provider built")
	if len(s.ProjectSets) > 0 {
		// Kept in sight, not only said once: the answers come from
		// another provider, model or prompt than the user's own.
		a.note = "project: " + strings.Join(s.ProjectSets, ", ")
	}
	if err := validateProviderTools(s.Provider, p, pts); err != nil {
		return err
	}
	model := s.Model
	if model == "" {
		model = defModel
	}
	if err := notRetired(*s, model); err != nil {
		return err
	}
	if s.Model != "" {
		// The provider's default is in the tables.
		if err := a.checkStartModel(*s, model); err != nil {
			return err
		}
	}
	mode, err := agent.ParseSearchMode(s.Search)
	if err != nil {
		return usage(err)
	}
	policy, err := newPolicy(*s)
	if err != nil {
		return err
	}
	a.setPolicy(policy)
	if err := a.startMode(*s); err != nil {
		return err
	}
	set := tools.NewSet()
	searcher := search.NewSearcher(set)
	project, changed := projectReadable(*s)
	if changed {
		a.warnings = append(a.warnings, changedProject)
	}
	a.instr, a.commands = loadInstructions(*s, project), loadCommands(*s, project)
	a.warnings = append(append(a.warnings, a.instr.Warnings...), commandWarnings(a.commands)...)
	a.setHosted(pts)
	cfg := agent.Config{
		Provider: p, Model: model, System: a.instr.System(s.System), Tools: set, Search: mode, Searcher: searcher,
		SearchAlgo: s.SearchAlgo, WireBudget: s.WireBudget, ProviderTools: pts, MaxSteps: s.MaxSteps, MaxTokens: s.MaxTokens,
		DeferToFit: s.Defer == "auto", NoStream: s.NoStream, MaxRetryWait: time.Duration(s.MaxRetryWait),
		AutoCompact: s.CompactShare(), Effort: s.Effort, ContextWindow: s.contextWindow(model),
		// Servers started from the catalog cache start as the first
		// request goes out (mcp Options.DeferStart).
		BeforeSend: func() {
			if a.mcp != nil && !a.opts.NoMCP {
				a.mcp.StartDeferred()
			}
		},
		// A first run's catalogs are written while the run waits for the
		// answer.
		AfterSend: func() {
			if a.early != nil {
				a.early.release()
			}
		},
	}
	cfg.Permit = a.permit
	if a.hooks, err = a.newSessionHooks(); err != nil {
		return err
	} else if a.hooks != nil {
		cfg.Hooks = a.hooks
		a.perms.mu.Lock()
		a.perms.preToolUse = a.hooks.preToolUse
		a.perms.mu.Unlock()
	}
	if s.FallbackModel != "" {
		cfg.Fallback, cfg.FallbackModel = p, s.FallbackModel
	}
	// The stored uses load in the background (NewLearner); closing stops
	// and waits for the load before the database closes under it.
	lctx, stopLoad := context.WithCancel(ctx)
	var st *agent.Session
	cfg.Learner = NewLearner(lctx, *s, a.db, searcher, func() string { return st.ID() })
	st = agent.New(cfg)
	a.session, a.label = st, s.Provider
	a.closers = append(a.closers, func() { stopLoad(); searcher.WaitLearned() })
	if err := a.addRunAgent(); err != nil {
		return err
	}
	if kit != nil {
		// The demo's catalog stands for the servers: a pattern that
		// matches none of its tools is warned about too.
		if err := st.Tools().Add(nil, kit.Tools...); err != nil {
			return err
		}
	} else if err := a.attachMCP(ctx, model, a.onMCPEvent); err != nil {
		return err
	}
	starttrace.Mark("mcp attached")
	if w, ok := a.unmatchedApprovals(); ok {
		a.warnings = append(a.warnings, w...)
		a.approvalChecked = true
	}
	return nil
}

// attachMCP starts the run's MCP servers (--mcp, or the configured ones),
// registers their tools in the session's set with --defer applied and
// --defer auto on top. The manager's Sync before each turn (Send) makes
// tools/list_changed take effect at turn boundaries.
func (a *App) attachMCP(ctx context.Context, model string, onEvent func(mcptools.Event)) error {
	var (
		configured map[string]config.MCPServer
		m          *mcptools.Manager
		servers    []config.MCPServer
		warnings   []error
		err        error
	)
	if e := a.early; e != nil {
		// Begun by Open before the database (earlymcp.go); its closer is
		// already in place.
		a.createWhileListing(ctx, e)
		testHookListWait(a)
		e.wait()
		if e.cancel != nil {
			e.cancel()
		}
		configured, m, servers, warnings, err = e.configured, e.m, e.servers, e.warnings, e.err
		if err != nil {
			return err
		}
	} else {
		if configured, err = a.settings.MCPServers(); err != nil {
			return err
		}
		// The servers a resumed session ran with join the configured ones.
		a.rememberServers(configured)
		o := a.mcpOptions()
		o.OnEvent, o.Cache = onEvent, a.catalogCache(ctx)
		if a.listing {
			o.Cache = forListing(o.Cache, eagerServers(configured), a.settings.Refresh)
		}
		if m, servers, warnings, err = startMCPServers(ctx, a.settings, configured, o); err != nil {
			return err
		}
		a.closers = append(a.closers, func() { _ = m.Close() })
	}
	starttrace.Mark("mcp start end")
	a.mcp, a.configured = m, configured
	if a.serverDefs == nil { // (createWhileListing may have set them)
		a.serverDefs = serverDefs(servers)
	}
	a.startWait = time.Duration(a.settings.MCPStartWait)
	if !a.opts.Interactive {
		if err := signInError(m); err != nil {
			return err // a sign-in was needed and not given: exit 1
		}
		// A server the user asked for by name must run: a -p answer
		// without its tools would be wrong, so it is an error (exit 1).
		for _, st := range m.Status() {
			if st.State == mcptools.StateFailed && slices.Contains(a.settings.MCP, st.Name) {
				return fmt.Errorf("%s; it was named with --mcp, so the run stops (fix the server, or leave out --mcp %s)", st.Error, st.Name)
			}
		}
	}
	for _, w := range warnings {
		a.warnings = append(a.warnings, w.Error())
	}
	// --defer is already in the servers' settings (startMCP); an agent
	// profile's tool list and deferral list filter what registers.
	a.session.Tools().SetPolicy(a.settings.toolPolicy())
	if err := m.Register(a.session.Tools(), false); err != nil {
		return err
	}
	for _, q := range a.session.Tools().Quarantined() {
		a.warnings = append(a.warnings, fmt.Sprintf("tool %s of server %s left out: its input schema is invalid (%s); every request would be rejected with it (agent tools lists it)",
			q.Tool.Name, dash(q.Tool.Server), q.Problem))
	}
	a.applyAutoDefer(configured, model)
	return nil
}

// mcpOptions are the manager's options of this run but for OnEvent and
// the cache.
func (a *App) mcpOptions() mcptools.Options {
	return mcptools.Options{OnEvent: a.onMCPEvent, ClientVersion: a.opts.Version,
		Host: mcpHost{a}, LogLevel: a.settings.mcpLogLevel(),
		Background: a.opts.Interactive || a.opts.NoMCP,
		// A run without a UI starts its cached servers as its first request
		// goes out (the session's BeforeSend), not while the run is set up;
		// with NoMCP never: the cached catalogs render the tools array.
		DeferStart: !a.opts.Interactive,
		OAuth:      a.runOAuthOptions()}
}

// NamedFailed is the error of a server named with --mcp that has failed to
// start: with its tools listed from the catalog cache, a -p run does not
// wait for it, so its failure may come during the turn; the run then ends
// with an error all the same.
func (a *App) NamedFailed() error {
	if a.mcp == nil {
		return nil
	}
	for _, st := range a.mcp.Status() {
		if st.State == mcptools.StateFailed && slices.Contains(a.settings.MCP, st.Name) {
			return fmt.Errorf("%s; it was named with --mcp, so the run failed (fix the server, or leave out --mcp %s)", st.Error, st.Name)
		}
	}
	return nil
}

// unmatchedApprovals returns a warning for each require_approval pattern
// that matches no tool: the calls it was meant to hold would run without
// asking. ok is false while a server is still starting (its tools are not
// known yet), to be asked again later.
func (a *App) unmatchedApprovals() (warnings []string, ok bool) {
	a.perms.mu.Lock()
	policy := a.perms.policy
	a.perms.mu.Unlock()
	if policy == nil || len(policy.RequireApproval) == 0 && len(policy.Rules.Restrictive()) == 0 {
		return nil, true
	}
	var servers []string
	if a.mcp != nil {
		for _, st := range a.mcp.Status() {
			if st.State == mcptools.StateStarting && st.Tools == 0 {
				return nil, false // its tools are not known yet (none cached)
			}
			servers = append(servers, st.Name)
		}
	}
	for _, p := range permission.Unmatched(policy.RequireApproval, a.session.Tools().All(), servers) {
		warnings = append(warnings, fmt.Sprintf("require_approval pattern %q matches no tool of the configured servers: check its spelling (a tool's wire name, the server's own tool name, SERVER__TOOL or server:SERVER all work)", p))
	}
	for _, p := range permission.Unmatched(policy.Rules.Restrictive(), a.session.Tools().All(), servers) {
		warnings = append(warnings, fmt.Sprintf("permissions pattern %q matches no tool of the configured servers: check its spelling (a tool's wire name, the server's own tool name, SERVER__TOOL or server:SERVER all work)", p))
	}
	return warnings, true
}

// Tools builds what agent tools reports without opening a store or a
// session: the provider (its error when it is not configured), the MCP
// tools with --defer applied, and the warnings. Close the App after.
func Tools(ctx context.Context, s Settings, o Options) (a *App, perr error, err error) {
	a = &App{settings: s, opts: o, listing: true}
	p, defModel, perr := NewProvider(s, s.Provider, o.Getenv)
	model := s.Model
	if model == "" {
		model = defModel
	}
	mode, _ := agent.ParseSearchMode(s.Search)
	a.session = agent.New(agent.Config{Provider: p, Model: model, Tools: tools.NewSet(), Search: mode})
	a.label = s.Provider
	return a, perr, a.attachMCP(ctx, model, nil)
}

// Close stops the MCP servers and closes the store.
func (a *App) Close() {
	a.bg.Wait()
	a.mu.Lock()
	cs := a.closers
	a.closers = nil
	a.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i]()
		if starttrace.On() {
			starttrace.Markf("closer done", strconv.Itoa(i))
		}
	}
}

// onMCPEvent turns MCP server events into notices shown by the front end.
// A server named with --mcp that fails to start is an error, sent to
// Alerts for the TUI to show at once.
func (a *App) onMCPEvent(e mcptools.Event) {
	if e.Kind == mcptools.EventWarning && a.alerts != nil && slices.Contains(a.settings.MCP, e.Server) {
		select {
		case a.alerts <- e.Text + "; it was named with --mcp, so its tools are missing from this session":
			return
		default:
		}
	}
	if a.captured(e) {
		return
	}
	text := e.Text
	if e.Kind == mcptools.EventToolsChanged && a.LastToolsHash() != "" {
		// Said only once a request went out: before the first, the new
		// tools simply join it, and there is no cache to miss.
		text += changeNote(e.CacheMiss)
	}
	switch {
	case text == "":
	case e.Kind == mcptools.EventServerUp, e.Kind == mcptools.EventToolsChanged, e.Kind == mcptools.EventListChanged:
		a.News(text)
	default:
		a.Notice(text)
	}
}

// changeNote is what a change of a server's tools costs, said once a
// request went out.
func changeNote(cacheMiss bool) string {
	note := "; the change applies from the next turn"
	if cacheMiss {
		note += ", whose request reads the prompt without the cache once (the tools array changes)"
	}
	return note
}

// Session is the core session (read its tools, history and usage).
func (a *App) Session() *agent.Session { return a.session }

// Settings are the resolved settings (after a resume, the restored ones).
func (a *App) Settings() Settings { return a.settings }

// Resumed reports whether Open resumed a stored session.
func (a *App) Resumed() bool { return a.isResume }

// Provider is the provider as the user named it ("ollama", "demo").
func (a *App) Provider() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.label
}

// Note is the status-bar note of the run (the demo's).
func (a *App) Note() string { return a.note }

// Warnings are the start-up warnings, to show once.
func (a *App) Warnings() []string {
	return append(append([]string(nil), a.settings.Warnings...), a.warnings...)
}

// A Notice is what the MCP servers or the app said: a warning (a server
// that did not start or stopped, a setting ignored) or news (a server up,
// its tools changed). The TUI marks the one and not the other: told apart
// by their text, a server's failure said between turns looked like news.
type Notice struct {
	Text    string
	Warning bool
}

// Notices are what the MCP servers and the app said since the start.
func (a *App) Notices() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]string, len(a.notices))
	for i, n := range a.notices {
		out[i] = n.Text
	}
	return out
}

// NewNotices returns the notices not handed out yet (the TUI says them
// in the chat once).
func (a *App) NewNotices() []Notice {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := append([]Notice(nil), a.notices[a.noticed:]...)
	a.noticed = len(a.notices)
	return out
}

// Notice adds a warning.
func (a *App) Notice(s string) { a.addNotice(Notice{Text: s, Warning: true}) }

// News adds a notice that reports no problem.
func (a *App) News(s string) { a.addNotice(Notice{Text: s}) }

func (a *App) addNotice(n Notice) {
	a.mu.Lock()
	a.notices = append(a.notices, n)
	a.mu.Unlock()
}

// LastToolsHash is the tools hash of the last request (or the resumed
// session's last one when none was sent yet).
func (a *App) LastToolsHash() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hash
}

// Send runs one turn. Tool list changes of the MCP servers take effect here,
// at the turn boundary. An error event's Err carries what to do about it
// (see Explain) and keeps its kind.
func (a *App) Send(ctx context.Context, text string) <-chan agent.Event {
	return a.SendInput(ctx, agent.Input{Text: text})
}

// SendInput is Send with the images the user attached. Images the model
// or its provider cannot take end the turn before anything is sent or
// stored, with the error CheckImages gives.
func (a *App) SendInput(ctx context.Context, in agent.Input) <-chan agent.Event {
	return agent.Stream(ctx, func(emit func(agent.Event)) {
		if err := a.CheckImages(in.Images); err != nil {
			emit(agent.Event{Type: agent.EventError, Err: err})
			emit(agent.Event{Type: agent.EventDone})
			return
		}
		a.mu.Lock()
		a.turnEmit = emit
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			a.turnEmit, a.turn = nil, nil
			a.mu.Unlock()
		}()
		// A server with no cached catalog holds the request until it has
		// listed its tools: the first prompt used to go out with none.
		starttrace.Mark("turn begin")
		a.awaitCatalog(ctx, emit)
		starttrace.Mark("catalog awaited")
		// What changed was said by the server's own notice ("MCP server
		// tt is up (6 tools)"); a second one here said it again.
		a.SyncTools()
		if !a.approvalChecked {
			// Servers started in the background: the patterns are checked
			// once every server has listed its tools.
			if w, ok := a.unmatchedApprovals(); ok {
				for _, n := range w {
					a.Notice(n)
				}
				a.approvalChecked = true
			}
		}
		// A custom command (/NAME ARGS) is its prompt, on its model, for
		// this turn.
		text, undo, warns, err := a.commandTurn(in.Text)
		if err != nil {
			err = usage(err)
		} else {
			// So is an MCP server's prompt (/SERVER:PROMPT ARGS), which
			// the TUI expands before it sends and -p did not.
			text, err = a.promptTurn(ctx, text)
		}
		if err != nil {
			emit(agent.Event{Type: agent.EventError, Err: err})
			emit(agent.Event{Type: agent.EventDone})
			return
		}
		in.Text = text
		defer undo()
		for _, w := range warns {
			emit(agent.Event{Type: agent.EventWarning, Text: w})
		}
		a.modeNote()
		tctx, turn := a.startTurn(ctx, in.Text)
		defer turn.End()
		a.mu.Lock()
		a.turn = turn
		a.mu.Unlock()
		_ = a.session.RunInput(tctx, in, func(ev agent.Event) {
			switch ev.Type {
			case agent.EventDone:
				// Undone before the front end hears the turn ended (and may
				// change the model itself); the session is idle by then.
				undo()
			case agent.EventError:
				ev.Err = a.Explain(ev.Err)
			case agent.EventUsage:
				if ev.Usage != nil {
					_, model := a.session.Target()
					a.spent(a.Provider(), model, *ev.Usage)
				}
			case agent.EventCompacted:
				notes, msgs := a.hooks.sessionStart(ctx, "compact")
				defer a.hooks.started(emit, notes, msgs)
			}
			turn.Observe(ev)
			emit(ev)
		})
	})
}

// SyncTools applies the tool list changes of the MCP servers (a server
// that finished starting in the background, tools/list_changed) and names
// the servers whose tools changed. Call it between turns only.
func (a *App) SyncTools() []string {
	if a.mcp == nil {
		return nil
	}
	a.syncMu.Lock()
	defer a.syncMu.Unlock()
	changed, err := a.mcp.Sync()
	if err != nil {
		return nil
	}
	return changed
}

// Answer gives the user's decision on an approval_requested event.
// A subagent's approval (its Tool.Agent set) goes to the subagent.
func (a *App) Answer(id string, allow bool) bool {
	d := permission.Decision{Behavior: permission.Deny, Source: permission.SourceUser}
	if allow {
		d.Behavior = permission.Allow
	}
	return a.decide(id, d)
}

// SetModel switches the model: "NAME" on the same provider, or
// "PROVIDER:NAME" to another one. The tools array is rebuilt for the new
// model and the history replays under the switching rules of each adapter.
func (a *App) SetModel(name string) error {
	prov, model, err := a.checkModel(name)
	if err != nil {
		return err
	}
	if err := a.useModel(prov, model); err != nil {
		return err
	}
	p, model := a.session.Target()
	a.mu.Lock()
	ss := a.stored
	a.mu.Unlock()
	meta := ss.Meta()
	meta.Provider, meta.API, meta.Model = a.Provider(), p.API(), model
	return ss.UpdateMeta(context.Background(), meta)
}

// checkModel reads "NAME" (on the session's provider) or "PROVIDER:NAME"
// and checks that the provider serves that model.
func (a *App) checkModel(name string) (prov, model string, err error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", "", fmt.Errorf("name a model: /model NAME or /model PROVIDER:NAME")
	}
	if a.isDemo() {
		return "", "", fmt.Errorf("the demo has one scripted model; run agent without --demo to switch models")
	}
	prov, model, ok := strings.Cut(name, ":")
	if !ok {
		prov, model = a.Provider(), name
	}
	// sonnet, opus, haiku: as --model and a profile read them.
	model, err = a.settings.modelOn(prov, model, "/model")
	if err != nil {
		return "", "", err
	}
	if err := servedBy(prov, model); err != nil {
		return "", "", err
	}
	if a.settings.BaseURL == "" {
		// Behind a proxy (--base-url) any alias may be served.
		if err := knownModel(prov, model, a.settings.modelTable()); err != nil {
			return "", "", err
		}
	}
	return prov, model, nil
}

func (a *App) isDemo() bool {
	p, _ := a.session.Target()
	return a.note != "" && p.Name() == "demo"
}

// useModel points the session at a provider and model, building the
// provider when it is another one. The demo keeps its scripted model.
func (a *App) useModel(provider, model string) error {
	if a.isDemo() || model == "" {
		return nil
	}
	p, err := a.providerFor(provider)
	if err != nil {
		return err
	}
	if err := a.session.Override(func(tc *agent.TurnContext) { tc.Provider, tc.Model = p, model }); err != nil {
		return err
	}
	if provider != "" {
		a.mu.Lock()
		a.label = provider
		a.mu.Unlock()
	}
	return nil
}

// running marks a missing key as found by a running agent, whose way out
// is not a flag.
func running(err error) error {
	if mk := (*registry.MissingKeyError)(nil); errors.As(err, &mk) {
		mk.Running = true
	}
	return err
}

// providerFor is the session's provider, or a new one when provider names
// another.
func (a *App) providerFor(provider string) (agent.Provider, error) {
	p, _ := a.session.Target()
	if provider == "" || provider == a.Provider() {
		return p, nil
	}
	np, _, err := NewProvider(a.settings, provider, a.opts.Getenv)
	if err != nil {
		return nil, fmt.Errorf("switch to %s: %w", provider, running(err))
	}
	return np, nil
}

// between returns an error of kind agent.ErrBusy while a turn runs: what
// must not start under a turn (a new session) asks it first.
func (a *App) between() error { return a.session.Override(func(*agent.TurnContext) {}) }

// FromSession is an App over a session wired elsewhere, without a store or
// MCP servers: the token bench drives its fakes through the same API
// (Send, the Reducer) as print mode and the TUI.
func FromSession(s *agent.Session) *App {
	p, _ := s.Target()
	a := &App{session: s, approvalChecked: true}
	if p != nil {
		a.label = p.Name()
	}
	return a
}
