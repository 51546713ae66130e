package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"
)

// Kinds of ToolUse.
const (
	// UseFound is a tool a search returned.
	UseFound = "found"
	// UseCalled is a call of a tool that a search of the same session had
	// found: the pair (the search's query, the tool) is what search learns
	// from.
	UseCalled = "called"
)

// ToolUse is one row of what tool search learns from.
type ToolUse struct {
	At      time.Time
	Session string
	Kind    string // UseFound or UseCalled
	Query   string
	Tool    string
	Server  string
	// Search is where the search ran: "client" or "provider".
	Search string
}

// maxUseQuery bounds a stored query: the engine reads no more of one.
const maxUseQuery = 2048

// RecordToolUses stores uses in one transaction. Queries are stored with
// credentials redacted, as messages are, and cut at 2,048 bytes.
func (d *DB) RecordToolUses(ctx context.Context, uses ...ToolUse) error {
	if len(uses) == 0 {
		return nil
	}
	san := newSanitizer(nil)
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO tool_uses (at, session_id, kind, query, tool, server, search) VALUES (?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, u := range uses {
			if u.Kind != UseFound && u.Kind != UseCalled {
				return fmt.Errorf("tool use kind %q: want %q or %q", u.Kind, UseFound, UseCalled)
			}
			at := u.At
			if at.IsZero() {
				at = d.now()
			}
			q := san.text(cut(u.Query, maxUseQuery))
			if _, err := st.ExecContext(ctx, at.UnixMilli(), u.Session, u.Kind, q, u.Tool, u.Server, u.Search); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record tool uses: %w", err)
	}
	return nil
}

// cut shortens s to at most n bytes on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// LearnedUses returns the newest limit 'called' uses (all when limit <= 0),
// oldest first: the (query, tool) pairs search learns from. Only what the
// engine reads is set: At, Kind, Query and Tool. A start reads up to
// 100,000 of them: read newest first along the (kind, at) index and turned
// round here, with three columns, it takes under half of what a sorted
// subquery of every column took (BenchmarkLearnedUses100k).
func (d *DB) LearnedUses(ctx context.Context, limit int) ([]ToolUse, error) {
	if limit <= 0 {
		limit = -1
	}
	// Sized first: growing a slice of 100,000 uses as rows come costs a
	// fifth more than counting them along the index.
	var n int
	if err := d.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM tool_uses WHERE kind = 'called'`).Scan(&n); err != nil {
		return nil, fmt.Errorf("count learned tool uses: %w", mapErr(err))
	}
	if limit > 0 {
		n = min(n, limit)
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT at, query, tool FROM tool_uses
		WHERE kind = 'called' ORDER BY at DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("read learned tool uses: %w", mapErr(err))
	}
	defer rows.Close()
	out := make([]ToolUse, 0, n)
	for rows.Next() {
		u := ToolUse{Kind: UseCalled}
		var at int64
		if err := rows.Scan(&at, &u.Query, &u.Tool); err != nil {
			return nil, fmt.Errorf("read learned tool uses: %w", mapErr(err))
		}
		u.At = fromMS(at)
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read learned tool uses: %w", mapErr(err))
	}
	slices.Reverse(out)
	return out, nil
}

// ToolStat is how often search found a tool and how often the model then
// called it.
type ToolStat struct {
	Tool, Server  string
	Found, Called int
	LastUsed      time.Time
}

// ToolStats returns every tool's counts, most called first.
func (d *DB) ToolStats(ctx context.Context) ([]ToolStat, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT tool, server,
		SUM(kind = 'found'), SUM(kind = 'called'), MAX(at)
		FROM tool_uses GROUP BY tool, server ORDER BY SUM(kind = 'called') DESC, SUM(kind = 'found') DESC, tool`)
	if err != nil {
		return nil, fmt.Errorf("read tool statistics: %w", mapErr(err))
	}
	defer rows.Close()
	var out []ToolStat
	for rows.Next() {
		var s ToolStat
		var at int64
		if err := rows.Scan(&s.Tool, &s.Server, &s.Found, &s.Called, &at); err != nil {
			return nil, fmt.Errorf("read tool statistics: %w", mapErr(err))
		}
		s.LastUsed = fromMS(at)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read tool statistics: %w", mapErr(err))
	}
	return out, nil
}

// ForgetToolUses deletes everything search learned and returns how many
// rows it deleted.
func (d *DB) ForgetToolUses(ctx context.Context) (int64, error) {
	res, err := d.sql.ExecContext(ctx, `DELETE FROM tool_uses`)
	if err != nil {
		return 0, fmt.Errorf("forget tool uses: %w", mapErr(err))
	}
	n, _ := res.RowsAffected()
	return n, nil
}
