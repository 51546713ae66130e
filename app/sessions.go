package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"syscall"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/store"
)

// The stored sessions: opening the database, resuming, starting afresh
// and leaving, and the tools hash each request records.

// ExitsAfterClose says that the process exits as soon as the command
// returns (main sets it): the database is then closed with
// store.DB.CloseForExit, which syncs the WAL and leaves SQLite's
// checkpoint (two more syncs, and the next run's first commit syncing a
// new WAL's header) to a later run. Tests and anything that goes on after
// Close leave it false.
var ExitsAfterClose bool

// closeDB closes the run's database, the way ExitsAfterClose says.
func closeDB(db *store.DB) {
	if ExitsAfterClose {
		_ = db.CloseForExit()
		return
	}
	_ = db.Close()
}

func openDB(ctx context.Context, path string) (*store.DB, error) {
	if path == "" {
		var err error
		if path, err = store.DefaultPath(); err != nil {
			return nil, fmt.Errorf("find the session database: %w (choose one with --db PATH)", err)
		}
	}
	db, err := store.Open(ctx, path, store.WithRequestAnalyser(requestAnalyser()))
	if err != nil {
		if ferr := dbFlagError(path, err); ferr != err {
			return nil, ferr
		}
		return nil, fmt.Errorf("open session database %s: %w", path, err)
	}
	return db, nil
}

// dbFlagErr is a --db path the database cannot be at, said as the other
// file flags say theirs (fileFlagError), keeping err's kind (and so its
// exit code): "open session database /tmp: open database /tmp: open
// /tmp: is a directory" named neither the flag nor what to give.
type dbFlagErr struct {
	path   string
	reason error
	err    error
}

func (e *dbFlagErr) Error() string {
	def, derr := store.DefaultPath()
	if derr != nil {
		def = "the default in your data directory"
	}
	return fmt.Sprintf("--db %s: %v: give a file for the session database (created if missing), or leave out --db for %s", e.path, e.reason, def)
}

func (e *dbFlagErr) Unwrap() error { return e.err }

// dbFlagError is err said as dbFlagErr when the --db path itself is wrong
// (a directory; a path through a file or nowhere); else err as it is: a
// file that is not writable or not a database says so in its own words.
func dbFlagError(path string, err error) error {
	var pe *fs.PathError
	if path == "" || !errors.As(err, &pe) || errors.Is(err, store.ErrReadOnly) {
		return err
	}
	if !errors.Is(pe.Err, syscall.EISDIR) && !errors.Is(pe.Err, syscall.ENOTDIR) && !errors.Is(pe.Err, fs.ErrNotExist) {
		return err
	}
	return &dbFlagErr{path: path, reason: pe.Err, err: err}
}

func sessionErr(id string, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return Usagef("no session %q: list them with agent sessions", id)
	case errors.Is(err, store.ErrAmbiguous):
		return Usagef("session ID prefix %q matches several sessions: give more of the ID (agent sessions lists them)", id)
	case errors.Is(err, store.ErrLocked):
		return err
	}
	return fmt.Errorf("open session %s: %w", id, err)
}

// useStore makes ss the session's store; the tools hash of every request
// is kept for the -p output on the way.
func (a *App) useStore(ss *store.Session) error {
	if err := a.session.Override(func(tc *agent.TurnContext) {
		tc.ID, tc.Store = ss.ID(), hashRecorder{Session: ss, a: a}
	}); err != nil {
		return err
	}
	a.mu.Lock()
	old := a.stored
	a.stored = ss
	a.mu.Unlock()
	if old != nil && old != ss {
		_ = old.Close()
	}
	return nil
}

type hashRecorder struct {
	*store.Session
	a *App
}

func (h hashRecorder) RecordRequest(ctx context.Context, r agent.RequestRecord) error {
	if r.ToolsHash != "" { // a compaction's summary request has none
		h.a.mu.Lock()
		h.a.hash = r.ToolsHash
		h.a.mu.Unlock()
	}
	return h.Session.RecordRequest(ctx, r)
}

// checkReplay compares the tools array this resume will send with the one
// sent last; a mismatch (a server's tools changed) costs the prompt cache.
func (a *App) checkReplay(ctx context.Context, ss *store.Session) {
	last, err := ss.LastToolsHash(ctx)
	if err != nil || last == "" {
		return
	}
	a.resumed = last
	if a.opts.NoMCP {
		return // no server runs (sessions compact): the tools are not in question
	}
	if h := toolsHash(a.session); h != "" && h != last {
		a.warnings = append(a.warnings, "the tools changed since this session's last request (a server's tools differ): the prompt cache will not match on the next request, which costs one uncached read of the prompt")
	}
}

// toolsHash is the hash of the tools array the provider would render now.
func toolsHash(s *agent.Session) string {
	type renderer interface {
		ToolsHash(req *agent.Request) (string, error)
	}
	p, _ := s.Target()
	if r, ok := p.(renderer); ok {
		if h, err := r.ToolsHash(s.BuildRequest()); err == nil {
			return h
		}
	}
	return ""
}

// Sessions lists the stored sessions, newest first. The demo lists its own
// only: it cannot continue another provider's (demoCanContinue), so the
// user's real sessions were offered in its picker and then refused.
func (a *App) Sessions(ctx context.Context) ([]store.Summary, error) {
	rows, err := a.db.List(ctx, store.ListOptions{})
	if err != nil || !a.isDemo() {
		return rows, err
	}
	return slices.DeleteFunc(rows, func(r store.Summary) bool { return r.Provider != demoName }), nil
}

// Resume makes the stored session id current and returns its history.
func (a *App) Resume(ctx context.Context, id string) ([]agent.Message, error) {
	ss, err := a.db.OpenSession(ctx, id)
	if err != nil {
		return nil, sessionErr(id, err)
	}
	if err := demoCanContinue(a.isDemo(), ss.Meta()); err != nil {
		_ = ss.Close()
		return nil, err
	}
	hist, err := ss.LoadRepaired(ctx)
	if err != nil {
		_ = ss.Close()
		return nil, err
	}
	// The session continues on its own model, as --resume does.
	meta := ss.Meta()
	if err := a.useModel(meta.Provider, meta.Model); err != nil {
		_ = ss.Close()
		return nil, err
	}
	if err := a.adopt(ss); err != nil {
		return nil, err
	}
	if err := a.reloadProjectFiles(true); err != nil {
		return nil, err
	}
	a.session.Reset(hist)
	if cp, err := ss.LastCompaction(ctx); err == nil && cp != nil {
		a.session.SetCompaction(cp) // it sends the compacted form, as --resume does
	}
	a.loadSpend(ctx, ss.ID())
	a.hooks.startedIdle(a.hooks.sessionStart(ctx, "resume"))
	a.tel.SessionStarted(ctx, a.label, true)
	return hist, nil
}

// New starts a fresh session with the current settings.
func (a *App) New(ctx context.Context) error {
	if err := a.between(); err != nil {
		return err
	}
	a.mu.Lock()
	meta := a.stored.Meta()
	a.mu.Unlock()
	meta.ID, meta.Title = "", ""
	ss, err := a.db.Create(ctx, meta)
	if err != nil {
		return err
	}
	if err := a.adopt(ss); err != nil {
		return err
	}
	if err := a.reloadProjectFiles(false); err != nil {
		return err
	}
	a.session.Reset(nil)
	a.loadSpend(ctx, "")
	a.hooks.startedIdle(a.hooks.sessionStart(ctx, "clear"))
	a.tel.SessionStarted(ctx, a.label, false)
	return nil
}

func (a *App) adopt(ss *store.Session) error {
	a.mu.Lock()
	a.closers = append(a.closers, func() { _ = ss.Close() })
	a.mu.Unlock()
	return a.useStore(ss)
}

// Leave drops the current session when nothing was written to it, so
// opening and quitting leaves no empty session for --continue to pick. It
// reports the ID of a session worth coming back to ("" when dropped).
func (a *App) Leave() string {
	id := a.session.ID()
	if id == "" {
		return ""
	}
	if len(a.session.Messages()) > 0 {
		return id
	}
	a.mu.Lock()
	ss := a.stored
	a.mu.Unlock()
	if ss != nil {
		_ = ss.Close()
	}
	_, _ = a.db.Delete(context.Background(), id)
	return ""
}

// Meta is the stored session's metadata (settings included).
func (a *App) Meta() store.SessionMeta {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stored.Meta()
}

// demoCanContinue refuses to continue another provider's session in the
// demo: its scripted model would answer in the user's real conversation,
// and the session, stored as the demo's from then on, would resume in the
// demo by default.
func demoCanContinue(demo bool, m store.SessionMeta) error {
	if !demo || m.Provider == demoName {
		return nil
	}
	made := "another provider"
	if m.Provider != "" {
		made = strings.TrimSuffix(m.Provider+" ("+m.Model+")", " ()")
	}
	return fmt.Errorf("session %s was made with %s, which the demo's scripted model cannot continue: resume it without --demo (agent --resume %s)", m.ID, made, m.ID)
}
