//go:build unix

package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"testing"
)

// helperExitClose is a process that writes a session and exits through
// CloseForExit (with STORE_FAST_EXIT=1) or Close; it prints whether the
// database file changed at the close and the WAL left behind.
func helperExitClose() int {
	ctx := context.Background()
	d, err := Open(ctx, os.Getenv("STORE_DB"))
	if err != nil {
		fmt.Println("error", err)
		return 0
	}
	s, err := d.Create(ctx, SessionMeta{Workdir: "/w", Provider: "anthropic", API: "messages", Model: "m"})
	if err != nil {
		fmt.Println("error", err)
		return 0
	}
	for _, m := range conversation() {
		if err := s.AppendMessage(ctx, m); err != nil {
			fmt.Println("error", err)
			return 0
		}
	}
	before := fileSum(d.path)
	if os.Getenv("STORE_FAST_EXIT") == "1" {
		err = d.CloseForExit()
	} else {
		err = d.Close()
	}
	if err != nil {
		fmt.Println("error", err)
		return 0
	}
	wal := int64(-1)
	if st, err := os.Stat(d.path + "-wal"); err == nil {
		wal = st.Size()
	}
	fmt.Println("ok", s.ID(), before == fileSum(d.path), wal)
	return 0
}

func fileSum(path string) [32]byte {
	b, _ := os.ReadFile(path)
	return sha256.Sum256(b)
}

// A process that exits through CloseForExit leaves its commits in the WAL,
// the database file untouched (no checkpoint), and the next process reads
// them all; Close checkpoints them into the file and removes the WAL.
func TestCloseForExitLeavesTheCheckpoint(t *testing.T) {
	for _, tt := range []struct {
		fast          bool
		fileUnchanged bool
	}{
		{fast: true, fileUnchanged: true},
		{fast: false, fileUnchanged: false},
	} {
		t.Run(fmt.Sprint("fast=", tt.fast), func(t *testing.T) {
			path := t.TempDir() + "/agent.db"
			// The file exists, checkpointed, before the helper writes.
			d, err := Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			d.Close()
			env := []string{"STORE_DB=" + path}
			if tt.fast {
				env = append(env, "STORE_FAST_EXIT=1")
			}
			h := startHelper(t, "exit-close", env...)
			line := h.until(t, "ok ")
			var id string
			var unchanged bool
			var wal int64
			if _, err := fmt.Sscan(line, &id, &unchanged, &wal); err != nil {
				t.Fatalf("helper: %q (%v)", line, err)
			}
			if err := h.cmd.Wait(); err != nil {
				t.Fatal(err)
			}
			if unchanged != tt.fileUnchanged {
				t.Fatalf("database file unchanged by the close: %v, want %v", unchanged, tt.fileUnchanged)
			}
			if tt.fast && wal <= 0 {
				t.Fatalf("no WAL left behind (size %d): the commits were checkpointed", wal)
			}
			if !tt.fast && wal != -1 {
				t.Fatalf("Close left a WAL of %d bytes", wal)
			}
			// This process is the next to open it: everything is there.
			d, err = Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			s, err := d.OpenSession(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			msgs, err := s.LoadRepaired(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != len(conversation()) {
				t.Fatalf("%d messages read back, want %d", len(msgs), len(conversation()))
			}
			var ok string
			if err := d.sql.QueryRowContext(t.Context(), "PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
				t.Fatalf("integrity_check: %q %v", ok, err)
			}
		})
	}
}

// A database deleted by hand after a run that exited through
// CloseForExit leaves its WAL and shared-memory files: the new database
// made at the path is made whole and empty, not the template with the
// deleted one's pages replayed over it from that WAL (SQLite ties a WAL
// to a path, not to a file). Both came back before: the deleted
// session, and pages no table reaches (integrity_check: "Page N is never
// used").
func TestDeletedDatabaseLeavesNoWALToTheNext(t *testing.T) {
	path := t.TempDir() + "/agent.db"
	d, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	h := startHelper(t, "exit-close", "STORE_DB="+path, "STORE_FAST_EXIT=1")
	line := h.until(t, "ok ")
	var id string
	if _, err := fmt.Sscan(line, &id); err != nil {
		t.Fatalf("helper: %q (%v)", line, err)
	}
	if err := h.cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("the run left no WAL (%v): nothing to test", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	d, err = Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if s, err := d.OpenSession(t.Context(), id); !errors.Is(err, ErrNotFound) {
		if err == nil {
			s.Close()
		}
		t.Errorf("the deleted database's session %s in the new one: %v, want ErrNotFound", id, err)
	}
	var ok string
	if err := d.sql.QueryRowContext(t.Context(), "PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check of the new database: %.200q %v", ok, err)
	}
}
