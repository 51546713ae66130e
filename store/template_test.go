package store

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "regenerate template.db from the migrations")

// migrated makes a database at path the way the migrations make one: a
// new file in WAL mode, every migration applied by goose.
func migrated(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)")
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(t.Context(), db); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// dump describes a database file: its header's settings, its schema and
// every row of every table, goose's application times left out (the
// template's are when it was generated).
func dump(t *testing.T, path string) string {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var b strings.Builder
	for _, p := range []string{"application_id", "user_version", "page_size", "journal_mode", "auto_vacuum", "encoding", "integrity_check"} {
		var v string
		if err := db.QueryRowContext(ctx, "PRAGMA "+p).Scan(&v); err != nil {
			t.Fatalf("PRAGMA %s: %v", p, err)
		}
		fmt.Fprintf(&b, "%s = %s\n", p, v)
	}
	var tables []string
	eachRow(t, db, "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name", func(rows *sql.Rows) {
		var typ, name, tbl, def string
		if err := rows.Scan(&typ, &name, &tbl, &def); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s on %s: %s\n", typ, name, tbl, def)
		if typ == "table" {
			tables = append(tables, name)
		}
	})
	for _, tb := range tables {
		cols := "*"
		if tb == "goose_db_version" {
			cols = "id, version_id, is_applied"
		}
		eachRow(t, db, "SELECT "+cols+" FROM \""+tb+"\" ORDER BY 1", func(rows *sql.Rows) {
			n, _ := rows.Columns()
			vals := make([]any, len(n))
			ptrs := make([]any, len(n))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "row %s: %v\n", tb, vals)
		})
	}
	return b.String()
}

// versionOf is the schema version of the database at path, as Open reads it.
func versionOf(t *testing.T, path string) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v, err := inspect(t.Context(), db, path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// eachRow calls fn on every row q returns.
func eachRow(t *testing.T, db *sql.DB, q string, fn func(*sql.Rows)) {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		fn(rows)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// The template a new database is copied from is the database the
// migrations make: same header settings (WAL, application_id), schema and
// rows (goose's versions). A migration added or changed without
// regenerating it fails here.
func TestNewDatabaseTemplate(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, "migrated.db")
	migrated(t, want)
	if *update {
		// VACUUM INTO leaves out the free pages the migrations left;
		// the copy is in rollback mode, switched back to WAL.
		clean := filepath.Join(dir, "clean.db")
		db, err := sql.Open("sqlite", want)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("VACUUM INTO ?", clean); err != nil {
			t.Fatal(err)
		}
		db.Close()
		db, err = sql.Open("sqlite", clean+"?_pragma=journal_mode(WAL)")
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Ping(); err != nil {
			t.Fatal(err)
		}
		db.Close()
		raw, err := os.ReadFile(clean)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("template.db", raw, 0o644); err != nil {
			t.Fatal(err)
		}
		template = raw
		t.Logf("template.db: %d bytes", len(raw))
	}
	got := filepath.Join(dir, "new.db")
	if _, err := createFile(got); err != nil {
		t.Fatal(err)
	}
	if g, w := dump(t, got), dump(t, want); g != w {
		t.Fatalf("a new database is not what the migrations make: regenerate the template with\n\tgo test ./store -run TestNewDatabaseTemplate -update\n--- template\n%s\n--- migrations\n%s", g, w)
	}
	// Opened, it is at the latest version without migrating (Open skips
	// goose at the latest version).
	if version := versionOf(t, got); version != latestVersion() {
		t.Fatalf("template at schema version %d, want %d", version, latestVersion())
	}
}

// A template older than the migrations (a migration added, the template
// not regenerated) still makes a database of the latest version: Open
// migrates what it lacks.
func TestStaleTemplateIsMigratedOnOpen(t *testing.T) {
	dir := t.TempDir()
	last := latestVersion()
	old := filepath.Join(dir, "old.db")
	db, err := sql.Open("sqlite", old+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newProvider(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(t.Context(), last-1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	saved := template
	t.Cleanup(func() { template = saved })
	template = raw

	path := filepath.Join(dir, "new.db")
	d, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if v := versionOf(t, path); v != last {
		t.Fatalf("opened from a template at version %d: version %d, want %d", last-1, v, last)
	}
	want := filepath.Join(dir, "migrated.db")
	migrated(t, want)
	if g, w := dump(t, path), dump(t, want); g != w {
		t.Fatalf("opened from a stale template, the database is not what the migrations make:\n--- opened\n%s\n--- migrations\n%s", g, w)
	}
}

// Open makes a new database's first commit itself (goose's times set to
// the creation time): the WAL, whose header SQLite syncs at its first
// commit, is started before the session's insert needs it.
func TestOpenNewStartsTheWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	d, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := os.Stat(path + "-wal")
	if err != nil || st.Size() <= 32 {
		t.Fatalf("no frame in the WAL after opening a new database: %v %v", st, err)
	}
	var old int
	if err := d.sql.QueryRowContext(t.Context(), "SELECT count(*) FROM goose_db_version WHERE tstamp < datetime('now', '-1 hour')").Scan(&old); err != nil || old != 0 {
		t.Fatalf("%d migration times are not the creation time (%v)", old, err)
	}
}

// A new database's first commit is made with synchronous=OFF (no sync of
// the new WAL's header); the connection it used goes back to the pool
// with the DSN's NORMAL, as every other connection has it.
func TestFirstCommitLeavesSynchronousNormal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	d, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// The pool's one idle connection, the one the first commit used.
	d.sql.SetMaxOpenConns(1)
	var mode int
	if err := d.sql.QueryRowContext(t.Context(), "PRAGMA synchronous").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != 1 {
		t.Fatalf("synchronous = %d after a new database's first commit, want 1 (NORMAL)", mode)
	}
}
