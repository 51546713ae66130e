package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

func TestOpenCreatesPrivateFiles(t *testing.T) {
	d, path := openTest(t)
	for p, want := range map[string]os.FileMode{filepath.Dir(path): 0o700, path: 0o600} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("%s mode = %o, want %o", p, got, want)
		}
	}
	var mode string
	var fk, busy int
	conn, err := d.sql.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode)
	conn.QueryRowContext(t.Context(), "PRAGMA foreign_keys").Scan(&fk)
	conn.QueryRowContext(t.Context(), "PRAGMA busy_timeout").Scan(&busy)
	if mode != "wal" || fk != 1 || busy != 5000 {
		t.Fatalf("journal_mode=%s foreign_keys=%d busy_timeout=%d", mode, fk, busy)
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/x/data")
	if p, _ := DefaultPath(); p != "/x/data/agent/agent.db" {
		t.Fatalf("with XDG_DATA_HOME: %s", p)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/home/u")
	if p, _ := DefaultPath(); p != "/home/u/.local/share/agent/agent.db" {
		t.Fatalf("without XDG_DATA_HOME: %s", p)
	}
}

func TestOpenIsIdempotent(t *testing.T) {
	ctx := t.Context()
	d, path := openTest(t)
	s := create(t, d, "/w")
	appendAll(t, s, conversation()...)
	s.Close()
	d.Close()
	for i := 0; i < 2; i++ {
		d2, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("reopen %d: %v", i, err)
		}
		l, err := d2.List(ctx, ListOptions{})
		if err != nil || len(l) != 1 {
			t.Fatalf("list after reopen: %v %v", l, err)
		}
		d2.Close()
	}
}

// Foreign, corrupt and newer files are refused with a clear error and left
// exactly as they were.
func TestOpenRefusesFilesThatAreNotOurs(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		want error
		msg  string
	}{
		{"text file", func(t *testing.T, p string) { os.WriteFile(p, []byte("hello, I am notes.txt\n"), 0o600) }, ErrNotDatabase, "not a database"},
		{"random bytes", func(t *testing.T, p string) {
			os.WriteFile(p, bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 1024), 0o600)
		}, ErrNotDatabase, "not a database"},
		{"sqlite header then garbage", func(t *testing.T, p string) {
			os.WriteFile(p, append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{0xff}, 4080)...), 0o600)
		}, ErrNotDatabase, "not a database or is corrupt"},
		{"another application's database", func(t *testing.T, p string) {
			db, _ := sql.Open("sqlite", p)
			defer db.Close()
			if _, err := db.Exec(`CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5)`); err != nil {
				t.Fatal(err)
			}
		}, ErrNotDatabase, "another application"},
		{"another goose user's database", func(t *testing.T, p string) {
			db, _ := sql.Open("sqlite", p)
			defer db.Close()
			if _, err := db.Exec(`CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY, version_id INTEGER, is_applied INTEGER, tstamp TIMESTAMP);
				INSERT INTO goose_db_version VALUES (1, 0, 1, 0); CREATE TABLE users (id INTEGER)`); err != nil {
				t.Fatal(err)
			}
		}, ErrNotDatabase, "another application"},
		{"newer schema", func(t *testing.T, p string) {
			d, err := Open(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.sql.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (9999, 1)`); err != nil {
				t.Fatal(err)
			}
			d.Close()
		}, ErrNewerSchema, "newer than this agent knows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "agent.db")
			tt.make(t, path)
			before := snapshot(t, dir)
			d, err := Open(ctx, path)
			if err == nil {
				d.Close()
				t.Fatal("opened a file that is not ours")
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error = %v; want %v mentioning %q and the path", err, tt.want, tt.msg)
			}
			if after := snapshot(t, dir); after != before {
				t.Fatalf("the file was changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// snapshot hashes every file of dir, names included.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		h.Write([]byte(e.Name()))
		h.Write(b)
	}
	return string(h.Sum(nil))
}

func TestOpenPathIsADirectory(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(t.Context(), dir); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("err = %v", err)
	}
}

// A full disk is simulated with max_page_count: the write fails with
// ErrDiskFull, nothing already stored is lost, and writing resumes once
// there is room.
func TestDiskFull(t *testing.T) {
	ctx := t.Context()
	d, _ := openTest(t)
	d.sql.SetMaxOpenConns(1) // the page limit is per connection
	s := create(t, d, "/w")
	appendAll(t, s, conversation()...)
	if err := s.SavePartial(ctx, agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("streaming")}}); err != nil {
		t.Fatal(err)
	}
	var pages int
	d.sql.QueryRow(`PRAGMA page_count`).Scan(&pages)
	if _, err := d.sql.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	big := agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart(strings.Repeat("x", 1<<20))}}
	err := s.AppendMessage(ctx, big)
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("append on a full disk: %v", err)
	}
	if err := s.SavePartial(ctx, big); !errors.Is(err, ErrDiskFull) {
		t.Fatalf("partial on a full disk: %v", err)
	}
	d.sql.Exec(`PRAGMA max_page_count = 1073741823`)
	appendAll(t, s, big)
	got, err := s.LoadRepaired(ctx)
	if err != nil || len(got) != len(conversation())+1 || !reflect.DeepEqual(got[:len(got)-1], conversation()) {
		t.Fatalf("history after a full disk: %d messages, %v", len(got), err)
	}
}

// A database of ours damaged on disk gives ErrCorrupt somewhere along the
// way to the history, never a panic.
func TestCorruptPages(t *testing.T) {
	ctx := t.Context()
	d, path := openTest(t)
	s := create(t, d, "/w")
	for i := 0; i < 300; i++ {
		appendAll(t, s, benchMessageLike(i))
	}
	id := s.ID()
	s.Close()
	d.sql.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	d.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Scribble over everything after the first pages, as a bad disk would.
	for i := 8 * 4096; i < len(b); i++ {
		b[i] = byte(i * 7)
	}
	os.WriteFile(path, b, 0o600)
	err = func() error {
		d, err := Open(ctx, path)
		if err != nil {
			return err
		}
		defer d.Close()
		s, err := d.OpenSession(ctx, id)
		if err != nil {
			return err
		}
		defer s.Close()
		_, err = s.LoadRepaired(ctx)
		return err
	}()
	if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotDatabase) {
		t.Fatalf("err = %v; want ErrCorrupt", err)
	}
}

func benchMessageLike(i int) agent.Message {
	return agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart(strings.Repeat(fmt.Sprintf("message %d ", i), 40))}}
}
