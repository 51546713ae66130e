package app

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/internal/starttrace"
	"github.com/agent-dev/agent/store"
	"github.com/agent-dev/agent/tools"
	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// A first run in a project (no database file yet) has no cached catalog:
// its first request waits for every MCP server to connect and list its
// tools. Those connections are begun before the database is created, so
// that creating and migrating it, reading the instructions and building
// the provider happen while the servers answer, instead of before they are
// asked. A run with a database keeps the order (the cache is read first:
// cached servers start lazily, never at launch).

// testHookOpenDB runs just before Open opens the database (tests hold it
// there to see what started before).
var testHookOpenDB = func() {}

// testHookListWait runs just before a first run waits for its servers'
// lists (tests look at what is done by then).
var testHookListWait = func(*App) {}

// earlyMCP is the MCP start Open begins before the database is open.
type earlyMCP struct {
	done       chan struct{} // closed when Start returned
	cancel     context.CancelFunc
	cache      *lateCache // nil with the catalog cache off
	configured map[string]config.MCPServer
	m          *mcptools.Manager
	servers    []config.MCPServer
	warnings   []error
	err        error // reading the config or selecting the servers
}

// dbAbsent reports whether the run's database file does not exist yet:
// nothing is cached for any server.
func dbAbsent(path string) bool {
	if path == "" {
		p, err := store.DefaultPath()
		if err != nil {
			return false
		}
		path = p
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	_, err = os.Lstat(abs)
	return errors.Is(err, fs.ErrNotExist)
}

// startMCPEarly begins the MCP start of a first run (Open calls it when
// dbAbsent). attachMCP takes its result; closeEarly ends it when Open
// fails before that. Servers' requests (elicitation, sampling) wait until
// Open has built the session (a.hostReady).
func (a *App) startMCPEarly(ctx context.Context) *earlyMCP {
	e := &earlyMCP{done: make(chan struct{})}
	s := a.settings
	e.configured, e.err = s.MCPServers()
	if e.err != nil {
		close(e.done)
		return e
	}
	o := a.mcpOptions()
	if s.catalogCacheOn() {
		e.cache = &lateCache{ready: make(chan struct{})}
		o.Cache = e.cache
	}
	o.Host = earlyHost{a}
	e.m, e.servers, e.err = newMCPManager(s, e.configured, o)
	if e.err != nil {
		close(e.done)
		return e
	}
	var sctx context.Context
	sctx, e.cancel = context.WithCancel(ctx)
	starttrace.Mark("mcp early start")
	go func() {
		defer close(e.done)
		e.warnings = e.m.Start(sctx)
	}()
	return e
}

// dbReady hands the database (nil when it failed to open) to the cache
// writes; they take write (storeCatalog) and wait for release.
func (e *earlyMCP) dbReady(db *store.DB, write *sync.Mutex) {
	if e.cache == nil {
		return
	}
	if db != nil {
		e.cache.c = &storeCatalog{db, write}
	}
}

// release lets the cache writes go, once the first request has gone out
// (the session's AfterSend), or Open failed, or the app closes (after
// dbReady; more calls do nothing). Until then they wait: a first run's
// session insert and first request then never queue behind them (eleven
// writes, each a list encoded, maybe a file written and synced, and an
// insert; about 10 ms of CPU and as many of waiting on the disk), and they
// run while the answer streams in.
func (e *earlyMCP) release() {
	if e.cache == nil {
		return
	}
	e.cache.once.Do(func() { close(e.cache.ready) })
}

// wait returns what Start returned.
func (e *earlyMCP) wait() { <-e.done }

// close ends an early start Open will not use: its servers are closed,
// its cache writes dropped.
func (e *earlyMCP) close() {
	if e.cancel != nil {
		e.cancel()
	}
	<-e.done
	if e.m != nil {
		_ = e.m.Close()
	}
}

// lateCache is the catalog cache of a run whose database is being created:
// nothing is cached yet; a list is written once the database is open and
// the session created (Manager.Close waits for the writes, so none is lost
// at exit).
type lateCache struct {
	ready chan struct{}
	once  sync.Once     // closes ready
	c     *storeCatalog // set before ready is closed; nil: no database
}

var errNoDB = errors.New("the session database could not be opened")

func (l *lateCache) LoadCatalog(ctx context.Context, server, hash string) (tools.CatalogEntry, bool, error) {
	select {
	case <-l.ready:
		if l.c != nil {
			return l.c.LoadCatalog(ctx, server, hash)
		}
	default:
	}
	// The database did not exist when the run started.
	return tools.CatalogEntry{}, false, nil
}

// WaitWrites waits for the database and the session (mcp WriteGate): the
// writer then takes every catalog listed meanwhile in one batch.
func (l *lateCache) WaitWrites(ctx context.Context) error {
	select {
	case <-l.ready:
		return nil
	case <-ctx.Done():
		// Released just before the manager closed (App.Close): the
		// writes go all the same.
		select {
		case <-l.ready:
			return nil
		default:
			return ctx.Err()
		}
	}
}

func (l *lateCache) SaveCatalog(ctx context.Context, e tools.CatalogEntry) error {
	return l.SaveCatalogs(ctx, []tools.CatalogEntry{e})
}

func (l *lateCache) SaveCatalogs(ctx context.Context, es []tools.CatalogEntry) error {
	if err := l.WaitWrites(ctx); err != nil {
		return err
	}
	if l.c == nil {
		return errNoDB
	}
	return l.c.SaveCatalogs(ctx, es)
}

// earlyHost is mcpHost for servers started before the session exists: a
// request waits until Open has built it (or failed, then it is declined).
type earlyHost struct{ a *App }

func (h earlyHost) built(ctx context.Context) error {
	select {
	case <-h.a.hostReady:
	case <-ctx.Done():
		return ctx.Err()
	}
	if !h.a.hostOK {
		return mcptools.ErrDeclined
	}
	return nil
}

func (h earlyHost) Elicit(ctx context.Context, e mcptools.Elicitation) (mcptools.ElicitAnswer, error) {
	if err := h.built(ctx); err != nil {
		return mcptools.ElicitAnswer{Action: mcptools.ActionDecline}, nil
	}
	return mcpHost(h).Elicit(ctx, e)
}

func (h earlyHost) Sample(ctx context.Context, r mcptools.SamplingRequest) (mcptools.SamplingAnswer, error) {
	if err := h.built(ctx); err != nil {
		return mcptools.SamplingAnswer{}, err
	}
	return mcpHost(h).Sample(ctx, r)
}

// createWhileListing creates a first -p run's session before attachMCP
// waits for the servers' lists: the insert (a transaction on the new
// database, ~2-3 ms in the traces between the build's end and "session
// created") then runs while the run waits anyway, instead of between the
// last list and the first request. What the session stores is known
// before the lists: the settings, the provider and model, the
// instructions' hash and the servers selected (not their tools). Open
// takes it (a.created); an Open that fails after it deletes it
// (dropCreated), so a failing first run leaves no session behind, as
// before. A run with a UI keeps the order: its servers start in the
// background, nothing waits for them.
func (a *App) createWhileListing(ctx context.Context, e *earlyMCP) {
	if e.err != nil || a.opts.Interactive || a.opts.NoMCP {
		return // attachMCP says e.err; nothing is waited for
	}
	a.serverDefs = serverDefs(e.servers)
	// An error is said after the servers' own (attachMCP's errors come
	// first, as when the session was created after them).
	a.created, a.createErr = a.createSession(ctx, a.sessionMeta())
}

// dropCreated deletes the session createWhileListing created for an Open
// that failed after it.
func (a *App) dropCreated(ctx context.Context) {
	ss := a.created
	if ss == nil {
		return
	}
	a.created = nil
	id := ss.ID()
	_ = ss.Close() // its lock, which Delete would refuse
	_, _ = a.db.Delete(context.WithoutCancel(ctx), id)
}
