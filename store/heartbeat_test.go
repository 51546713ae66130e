package store

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// An open session refreshes its lock at the heartbeat interval, so an idle
// writer is never taken for a dead one; closing the database releases the
// lock of a session still open on it.
func TestHeartbeatKeepsTheLockFresh(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "agent.db")
	d, err := Open(ctx, path, WithLockTimings(time.Hour, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Now()
	var tick int64
	d.now = func() time.Time { tick++; return clock.Add(time.Duration(tick) * time.Second) }
	s := create(t, d, "/w")
	beat := func() (at int64, ok bool) {
		err := d.sql.QueryRowContext(ctx, `SELECT heartbeat_at FROM session_locks WHERE session_id = ?`, s.ID()).Scan(&at)
		return at, err == nil
	}
	first, ok := beat()
	if !ok {
		t.Fatal("no lock for an open session")
	}
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	deadline := time.After(30 * time.Second)
	for at := first; at == first; at, _ = beat() {
		select {
		case <-tk.C:
		case <-deadline:
			t.Fatal("the heartbeat never refreshed the lock")
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if h, err := d2.Holder(ctx, s.ID()); err != nil || h != nil {
		t.Errorf("the closed database's session still holds its lock: %+v %v", h, err)
	}
}

// A session whose meta changes (a model switch: UpdateMeta) while its
// heartbeat runs: the heartbeat read s.meta without the session's lock,
// a data race under -race (cmd TestTUIVertexModelSwitches).
func TestHeartbeatBesideUpdateMeta(t *testing.T) {
	ctx := t.Context()
	d, err := Open(ctx, filepath.Join(t.TempDir(), "agent.db"), WithLockTimings(time.Hour, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s := create(t, d, "/w")
	beat := func() (at int64) {
		_ = d.sql.QueryRowContext(ctx, `SELECT heartbeat_at FROM session_locks WHERE session_id = ?`, s.ID()).Scan(&at)
		return at
	}
	for i := range 5 {
		m := s.Meta()
		m.Model = fmt.Sprintf("claude-sonnet-4-%d", i)
		if err := s.UpdateMeta(ctx, m); err != nil {
			t.Fatal(err)
		}
		// Wait for a heartbeat after the change.
		deadline := time.Now().Add(30 * time.Second)
		for first := beat(); beat() == first; {
			if time.Now().After(deadline) {
				t.Fatal("the heartbeat never refreshed the lock")
			}
			<-time.After(time.Millisecond)
		}
	}
}
