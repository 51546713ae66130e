package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// LockedError says which process holds a session. It matches ErrLocked.
type LockedError struct {
	SessionID string
	PID       int
	Host      string
	Since     time.Time
}

func (e *LockedError) Error() string {
	where := fmt.Sprintf("pid %d", e.PID)
	if e.Host != "" {
		where += " on " + e.Host
	}
	return fmt.Sprintf("session %s is open in another agent process (%s) since %s; finish or quit it there, or start a new session",
		e.SessionID, where, e.Since.Format("15:04:05"))
}

func (e *LockedError) Is(target error) bool { return target == ErrLocked }

type lockRow struct {
	token     string
	pid       int
	host      string
	acquired  int64
	heartbeat int64
}

// stale reports whether a lock's holder is gone. On this host a dead pid
// frees it at once; otherwise (another host, or a live pid that may be a
// reused one) only a heartbeat older than staleAfter does.
func (d *DB) stale(l lockRow) bool {
	if l.host == d.host && !pidAlive(l.pid) {
		return true
	}
	return d.now().Sub(fromMS(l.heartbeat)) > d.staleAfter
}

func readLock(ctx context.Context, tx *sql.Tx, id string) (lockRow, bool, error) {
	var l lockRow
	err := tx.QueryRowContext(ctx, `SELECT token, pid, host, acquired_at, heartbeat_at FROM session_locks WHERE session_id = ?`, id).
		Scan(&l.token, &l.pid, &l.host, &l.acquired, &l.heartbeat)
	if errors.Is(err, sql.ErrNoRows) {
		return l, false, nil
	}
	return l, err == nil, err
}

// acquire takes the writer lock of session id for token inside tx.
func (d *DB) acquire(ctx context.Context, tx *sql.Tx, id, token string) error {
	l, held, err := readLock(ctx, tx, id)
	if err != nil {
		return fmt.Errorf("read lock of session %s: %w", id, err)
	}
	if held && l.token != token && !d.stale(l) {
		return &LockedError{SessionID: id, PID: l.pid, Host: l.host, Since: fromMS(l.acquired)}
	}
	now := ms(d.now())
	_, err = tx.ExecContext(ctx, `INSERT INTO session_locks (session_id, token, pid, host, acquired_at, heartbeat_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET token = excluded.token, pid = excluded.pid, host = excluded.host,
			acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at`,
		id, token, d.pid, d.host, now, now)
	if err != nil {
		return fmt.Errorf("lock session %s: %w", id, err)
	}
	return nil
}

// holding refreshes the heartbeat and checks, inside a write transaction,
// that this process still owns the session.
func (d *DB) holding(ctx context.Context, tx *sql.Tx, id, token string) error {
	res, err := tx.ExecContext(ctx, `UPDATE session_locks SET heartbeat_at = ? WHERE session_id = ? AND token = ?`, ms(d.now()), id, token)
	if err != nil {
		return fmt.Errorf("refresh lock of session %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		l, held, _ := readLock(ctx, tx, id)
		if held {
			return fmt.Errorf("session %s: %w (pid %d on %s)", id, ErrLockLost, l.pid, l.host)
		}
		return fmt.Errorf("session %s: %w", id, ErrLockLost)
	}
	return nil
}

// heartbeatLoop keeps the lock fresh while the session is open, so an idle
// TUI is not mistaken for a dead one.
func (s *Session) heartbeatLoop(id string) {
	defer close(s.hbDone)
	t := time.NewTicker(s.db.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-s.hbStop:
			return
		case <-t.C:
			_, _ = s.db.sql.ExecContext(context.Background(), `UPDATE session_locks SET heartbeat_at = ? WHERE session_id = ? AND token = ?`,
				ms(s.db.now()), id, s.token)
		}
	}
}

// Holder reports the live process holding session id's writer lock, if any.
func (d *DB) Holder(ctx context.Context, id string) (*LockedError, error) {
	var l lockRow
	err := d.sql.QueryRowContext(ctx, `SELECT token, pid, host, acquired_at, heartbeat_at FROM session_locks WHERE session_id = ?`, id).
		Scan(&l.token, &l.pid, &l.host, &l.acquired, &l.heartbeat)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, mapErr(err)
	}
	if d.stale(l) {
		return nil, nil
	}
	return &LockedError{SessionID: id, PID: l.pid, Host: l.host, Since: fromMS(l.acquired)}, nil
}
