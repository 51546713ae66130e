// Package store keeps sessions in SQLite (modernc.org/sqlite, no cgo): the
// messages with their typed parts and each part's raw provider payload byte
// for byte, the tools discovered, the usage of every request and the settings
// that shape a request, so a resumed session sends exactly what it sent
// before. Migrations are embedded and applied on open with goose.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// mmapSize is the memory-mapped I/O window of every connection (256 MiB).
const mmapSize = "268435456"

//go:embed migrations/*.sql
var migrations embed.FS

// appID is written to the file header by the first migration ("AGNT"); a
// SQLite file with tables and another application_id is not ours.
const appID = 0x41474E54

// Errors callers branch on. Driver errors are mapped to these so no caller
// inspects SQLite codes.
var (
	ErrNotFound    = errors.New("not found")
	ErrAmbiguous   = errors.New("ambiguous session id prefix")
	ErrLocked      = errors.New("session is open in another agent process")
	ErrLockLost    = errors.New("session was taken over by another agent process")
	ErrNotDatabase = errors.New("not an agent session database")
	ErrNewerSchema = errors.New("database was written by a newer agent")
	ErrReadOnly    = errors.New("database is not writable")
	ErrDiskFull    = errors.New("disk is full")
	ErrBusy        = errors.New("database is busy")
	ErrCorrupt     = errors.New("database file is corrupt")
)

// DB is an open session database. It is safe for concurrent use; many
// processes may open the same file, one writer per session.
type DB struct {
	sql  *sql.DB
	path string
	// lock identity and timings, see lock.go
	pid        int
	host       string
	staleAfter time.Duration
	heartbeat  time.Duration
	now        func() time.Time
	// open are the sessions whose heartbeat runs: Close ends them, so
	// none ticks against a closed database.
	openMu sync.Mutex
	open   map[*Session]bool
	// analyser analyses the requests of learned uses as they are stored
	// (see WithRequestAnalyser); nil keeps only their text.
	analyser *RequestAnalyser
	// kept is the connection CloseForExit leaves open.
	kept *sql.Conn
}

// Option tunes Open; the defaults suit the CLI.
type Option func(*DB)

// WithLockTimings sets after how long without a heartbeat a session lock
// counts as abandoned, and how often a writer refreshes its own.
func WithLockTimings(staleAfter, heartbeat time.Duration) Option {
	return func(d *DB) { d.staleAfter, d.heartbeat = staleAfter, heartbeat }
}

// DefaultPath is $XDG_DATA_HOME/agent/agent.db, else ~/.local/share/agent/agent.db.
func DefaultPath() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "agent", "agent.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find default database path: %w", err)
	}
	return filepath.Join(home, ".local", "share", "agent", "agent.db"), nil
}

// Open opens (creating if needed) the database at path, or at DefaultPath
// when path is empty, and applies pending migrations. A file that is not an
// agent database, or one from a newer agent, is refused and left untouched.
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) {
	if path == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open database %s: the path may not contain '?' or '#'", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	path = abs
	created, err := prepareFile(path)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	d := &DB{path: path, pid: os.Getpid(), host: host, staleAfter: 30 * time.Second, heartbeat: 5 * time.Second, now: time.Now}
	for _, o := range opts {
		o(d)
	}
	// _txlock=immediate: every write transaction takes the write lock up
	// front, so busy_timeout applies instead of a deadlock on upgrade.
	// No journal_mode here: the pragmas a connection runs must change
	// nothing in a file inspect may refuse (the mode is the file's, set
	// once, below).
	dsn := path + "?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=mmap_size(" + mmapSize + ")&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, mapErr(err))
	}
	var version int64
	if created {
		// Our template, just linked into place: nothing to refuse, and
		// in WAL mode already; only its version is read (a stale
		// template is migrated below).
		version, err = createdVersion(ctx, db, path)
	} else {
		version, err = inspect(ctx, db, path)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	// A database at the latest version (every new one: the template is
	// current) needs no migration; goose would only read its version table.
	if version < latestVersion() {
		if err := migrate(ctx, db); err != nil {
			db.Close()
			return nil, fmt.Errorf("migrate database %s: %w", path, err)
		}
	}
	if created {
		// The migrations' times become the database's creation time
		// (the template's are when it was generated). This is also the
		// new WAL's first commit, which creates the WAL and its index:
		// made here, while a first run's servers list, not by the
		// session's insert. (A later run finds the WAL the last one
		// left, CloseForExit.)
		if err := firstCommit(ctx, db); err != nil {
			db.Close()
			return nil, fmt.Errorf("open database %s: %w", path, mapErr(err))
		}
	}
	d.sql = db
	return d, nil
}

// Path is the database file.
func (d *DB) Path() string { return d.path }

// Close closes the database, and first the sessions still open on it
// (their heartbeats end, their locks are released).
func (d *DB) Close() error {
	d.closeSessions()
	return d.sql.Close()
}

func (d *DB) closeSessions() {
	d.openMu.Lock()
	var left []*Session
	for s := range d.open {
		left = append(left, s)
	}
	d.openMu.Unlock()
	for _, s := range left {
		_ = s.Close()
	}
}

// CloseForExit is Close for a process that exits right after it. What was
// committed is made durable by syncing the WAL file, and the checkpoint
// SQLite runs when the last connection to the file closes is left to a
// later run. That checkpoint copied the WAL's pages into the database file
// with two syncs and removed the WAL, so the next run's first commit
// started a new WAL and synced its header: three syncs a run, 10-25 ms
// each on a busy disk, on the exit's path and before the first request.
// The next process to open the file recovers the WAL, as after a crash
// (reading it to rebuild its index), and SQLite checkpoints it during a
// commit once it holds wal_autocheckpoint pages (1000, 4 MB).
//
// One connection is kept open, never closed: its shared lock on the file
// is what stops the others' close from checkpointing; the process's exit
// releases it. Nothing may use d afterwards. Tests and long-lived
// processes use Close.
func (d *DB) CloseForExit() error {
	d.closeSessions()
	ctx := context.Background()
	c, err := d.sql.Conn(ctx)
	if err == nil {
		// A read opens the connection's view of the WAL (its shared
		// lock) if nothing did yet.
		var n int
		err = c.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n)
	}
	if err != nil {
		if c != nil {
			_ = c.Close()
		}
		return d.sql.Close()
	}
	d.kept = c
	if err := syncIfExists(d.path + "-wal"); err != nil {
		// Not made durable: the checkpoint does it, as Close.
		d.kept = nil
		_ = c.Close()
		return errors.Join(fmt.Errorf("sync the WAL of %s: %w", d.path, err), d.sql.Close())
	}
	return d.sql.Close()
}

// syncIfExists flushes the file at path to the disk, if there is one.
func syncIfExists(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// prepareFile creates the directory (0700) and, when there is no file yet,
// a new database (0600) atomically, so that SQLite never creates files with
// the umask's wider permissions and no process ever sees a half-made
// database; it refuses a file that is not SQLite at all before SQLite can
// touch it.
func prepareFile(path string) (created bool, err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("create database directory %s: %w", dir, fsErr(err))
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		if created, err = createFile(path); err != nil {
			return false, err
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		if readOnlyFS(err) {
			return false, fmt.Errorf("open database %s: the file is not writable: %w", path, ErrReadOnly)
		}
		return false, fmt.Errorf("open database %s: %w", path, fsErr(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("open database %s: %w", path, err)
	}
	if st.IsDir() {
		return false, fmt.Errorf("open database %s: it is a directory", path)
	}
	if st.Size() == 0 {
		return false, nil
	}
	if created {
		// Ours, and the directory took a file (the template's).
		return true, nil
	}
	head := make([]byte, 16)
	if _, err := io.ReadFull(f, head); err != nil || string(head) != "SQLite format 3\x00" {
		return false, fmt.Errorf("open database %s: %w: the file is not SQLite (file is not a database); it was left untouched, choose another path with --db", path, ErrNotDatabase)
	}
	// The WAL and shared-memory files must be creatable next to it.
	if err := dirWritable(dir); err != nil {
		return false, fmt.Errorf("open database %s: directory %s is not writable (SQLite needs it for the -wal file): %w", path, dir, ErrReadOnly)
	}
	return created, nil
}

// createFile makes a new, fully migrated database (a copy of the template,
// template.go) under a temporary name and
// links it into place, which fails if another process got there first: then
// that process's database, complete too, is the one opened. Concurrent first
// starts therefore all succeed.
func createFile(path string) (created bool, err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".new-*")
	if err != nil {
		if readOnlyFS(err) {
			return false, fmt.Errorf("create database %s: directory %s is not writable: %w", path, dir, ErrReadOnly)
		}
		return false, fmt.Errorf("create database %s: %w", path, fsErr(err))
	}
	tmp := f.Name() // CreateTemp makes it 0600
	err = writeTemplate(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	defer func() {
		for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
			_ = os.Remove(tmp + suffix)
		}
	}()
	// The template is in WAL mode already, so the processes that open it
	// find it in WAL: switching the journal mode needs an exclusive lock,
	// which SQLite may refuse at once (SQLITE_BUSY, no busy handler) while
	// another first start holds the file open. It is synced, whole, before
	// it is linked into place (template.go).
	if err != nil {
		return false, fmt.Errorf("create database %s: %w", path, err)
	}
	if unlock, ok := lockDir(dir); ok {
		// Held until the file is in place: another first start that
		// linked its own meanwhile has a live WAL, not an orphan.
		defer unlock()
		if err := removeOrphanWAL(path); err != nil {
			return false, err
		}
	}
	err = os.Link(tmp, path)
	if errors.Is(err, fs.ErrExist) {
		return false, nil // another process's, complete too
	}
	if err != nil {
		// No hard links on this file system: rename, unless another
		// process has made the file meanwhile.
		if _, serr := os.Lstat(path); serr == nil {
			return false, nil
		}
		if err := os.Rename(tmp, path); err != nil {
			return false, fmt.Errorf("create database %s: %w", path, fsErr(err))
		}
	}
	return true, nil
}

// removeOrphanWAL removes the -wal and -shm files beside path while no
// database is there: they are a deleted database's (CloseForExit leaves
// its WAL for the next run to checkpoint, and a user who deletes the file
// by hand leaves them), and SQLite, which ties a WAL to the path, would
// replay that WAL's pages over the new file: the deleted sessions came
// back, or pages of the old b-trees no table of the new one reaches. It
// runs under lockDir, and looks at the path again: a database another
// first start has linked into place meanwhile (whose WAL is live) keeps
// its files.
func removeOrphanWAL(path string) error {
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("create database %s: %s is a deleted database's and cannot be removed: %w: remove it, or choose another path with --db", path, path+suffix, fsErr(err))
		}
	}
	return nil
}

func dirWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".agent-db-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

func fsErr(err error) error {
	if readOnlyFS(err) {
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	}
	return err
}

// readOnlyFS reports a write refused by permissions or by a file system
// mounted read-only (EROFS, which is not a permission error to package
// os): either way the database can still be read.
func readOnlyFS(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// inspect looks at the file through the pool's first connection, which
// has changed nothing yet, and refuses a foreign or newer database; it
// returns the schema version (0 for a new, empty file) and puts an agent
// database in WAL mode if it is not (a file made before the template). The
// same connection then serves the session: the file is opened and its
// schema parsed once.
func inspect(ctx context.Context, db *sql.DB, path string) (version int64, err error) {
	notOurs := func(err error) error {
		err = mapErr(err)
		if errors.Is(err, ErrNotDatabase) || errors.Is(err, ErrCorrupt) {
			return fmt.Errorf("open database %s: file is not a database or is corrupt; it was left untouched, choose another path with --db (%w)", path, err)
		}
		return fmt.Errorf("open database %s: %w", path, err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, notOurs(err)
	}
	defer conn.Close()
	var id int64
	if err := conn.QueryRowContext(ctx, "PRAGMA application_id").Scan(&id); err != nil {
		return 0, notOurs(err)
	}
	var tables int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table'").Scan(&tables); err != nil {
		return 0, fmt.Errorf("open database %s: %w", path, mapErr(err))
	}
	if tables != 0 {
		if id != appID {
			return 0, fmt.Errorf("open database %s: %w: it is a SQLite database of another application; it was left untouched, choose another path with --db", path, ErrNotDatabase)
		}
		var have sql.NullInt64
		err = conn.QueryRowContext(ctx, "SELECT max(version_id) FROM "+goose.DefaultTablename).Scan(&have)
		if err != nil {
			return 0, fmt.Errorf("open database %s: read schema version: %w", path, mapErr(err))
		}
		if want := latestVersion(); have.Int64 > want {
			return 0, fmt.Errorf("open database %s: %w: schema version %d is newer than this agent knows (%d); upgrade agent or use another --db", path, ErrNewerSchema, have.Int64, want)
		}
		version = have.Int64
	}
	var mode string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return 0, fmt.Errorf("open database %s: %w", path, mapErr(err))
	}
	if !strings.EqualFold(mode, "wal") {
		if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
			return 0, fmt.Errorf("open database %s: set WAL mode: %w", path, mapErr(err))
		}
	}
	return version, nil
}

// createdVersion is inspect for a database Open has just made from the
// template: its schema version, through the pool's first connection.
func createdVersion(ctx context.Context, db *sql.DB, path string) (int64, error) {
	var have sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT max(version_id) FROM "+goose.DefaultTablename).Scan(&have); err != nil {
		return 0, fmt.Errorf("open database %s: read schema version: %w", path, mapErr(err))
	}
	return have.Int64, nil
}

// firstCommit sets a new database's migration times to now, its first
// commit, which starts the WAL. It is made without the sync of the WAL's
// header SQLite makes when a WAL begins (synchronous=OFF for this commit
// only): under synchronous=NORMAL no commit is synced before a
// checkpoint, which syncs the WAL first, and CloseForExit syncs it at
// exit, so that sync kept nothing more after a power cut, and cost a
// first run an fsync (about 0.4 ms of CPU, and its wait on a busy disk)
// while its servers list. Later WALs (after a checkpoint) keep SQLite's
// header sync.
func firstCommit(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = OFF"); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "UPDATE "+goose.DefaultTablename+" SET tstamp = datetime('now')")
	// Back to the DSN's setting before the connection returns to the
	// pool, whatever the update did; a connection that cannot be set
	// back is not returned (Raw's error marks it bad).
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous = NORMAL"); rerr != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		if err == nil {
			err = rerr
		}
	}
	return err
}

func newProvider(db *sql.DB) (*goose.Provider, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(goose.DialectSQLite3, db, sub, goose.WithDisableGlobalRegistry(true))
}

func migrate(ctx context.Context, db *sql.DB) error {
	p, err := newProvider(db)
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return mapErr(err)
	}
	return nil
}

// latestVersion is the highest embedded migration.
func latestVersion() int64 {
	var v int64
	ents, _ := fs.ReadDir(migrations, "migrations")
	for _, e := range ents {
		var n int64
		if _, err := fmt.Sscanf(e.Name(), "%d_", &n); err == nil && n > v {
			v = n
		}
	}
	return v
}

// withTx runs fn in one transaction and commits it, mapping driver errors.
func (d *DB) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return mapErr(err)
	}
	return mapErr(tx.Commit())
}

// mapErr turns SQLite result codes into the package's errors, keeping the
// driver's message for the details.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	var sentinel error
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		sentinel = ErrBusy
	case sqlite3.SQLITE_NOTADB:
		sentinel = ErrNotDatabase
	case sqlite3.SQLITE_CORRUPT:
		sentinel = ErrCorrupt
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
		sentinel = ErrReadOnly
	case sqlite3.SQLITE_FULL:
		sentinel = ErrDiskFull
	default:
		return err
	}
	if errors.Is(err, sentinel) {
		return err
	}
	return fmt.Errorf("%w: %w", sentinel, err)
}

// OpenReadOnly opens an existing database without writing to it or next to
// it, for listing and showing sessions in a database the user cannot write
// (a read-only file, directory or file system); a database that does not
// exist reads as an empty one. Writes through it fail with ErrReadOnly.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open database %s: the path may not contain '?' or '#'", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	path = abs
	host, _ := os.Hostname()
	d := &DB{path: path, pid: os.Getpid(), host: host, staleAfter: 30 * time.Second, heartbeat: 5 * time.Second, now: time.Now}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		// Nothing was ever stored there (a fresh data directory that cannot
		// be written): it reads as an empty database, as the first run
		// would have made it.
		db, err := sql.Open("sqlite", "file::memory:")
		if err != nil {
			return nil, fmt.Errorf("open database %s: %w", path, mapErr(err))
		}
		db.SetMaxOpenConns(1) // each connection would have a memory database of its own
		if err := migrate(ctx, db); err != nil {
			db.Close()
			return nil, fmt.Errorf("open database %s: %w", path, err)
		}
		if _, err := db.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
			db.Close()
			return nil, fmt.Errorf("open database %s: %w", path, mapErr(err))
		}
		d.sql = db
		return d, nil
	} else if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, fsErr(err))
	}
	// immutable: SQLite neither locks nor creates the -wal and -shm files,
	// which a read-only directory would refuse.
	db, err := sql.Open("sqlite", "file:"+strings.ReplaceAll(path, "%", "%25")+"?mode=ro&immutable=1&_pragma=query_only(1)")
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, mapErr(err))
	}
	var id int64
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&id); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database %s: %w", path, mapErr(err))
	}
	if id != appID {
		db.Close()
		return nil, fmt.Errorf("open database %s: %w", path, ErrNotDatabase)
	}
	d.sql = db
	return d, nil
}
