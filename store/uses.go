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
	// Scope keeps what one kind of run learns apart from the others':
	// "" for real sessions, ScopeDemo for the demo's.
	Scope string
	// Terms is the request analysed, as LearnedAnalysed reads it: each
	// term a uvarint number into LearnedSet.Terms (empty, not nil: no
	// terms). Nil when Query is read instead.
	Terms []byte
}

// ScopeDemo is the learning scope of --demo runs: their scripted searches
// and calls teach nothing to real sessions.
const ScopeDemo = "demo"

// maxUseQuery bounds a stored query: the engine reads no more of one.
const maxUseQuery = 2048

// RecordToolUses stores uses in one transaction. Queries are stored with
// credentials redacted, as messages are, and cut at 2,048 bytes. A session
// votes once per (request, tool): a 'called' use whose session already has
// one with the same scope, request and tool is not stored again.
func (d *DB) RecordToolUses(ctx context.Context, uses ...ToolUse) error {
	if err := d.insertUses(ctx, uses, `SELECT 1 FROM tool_uses WHERE tool = ?4 AND kind = ?2 AND ?2 = 'called'
		AND ?8 != '' AND session_id = ?8 AND query = ?3 AND scope = ?7`); err != nil {
		return fmt.Errorf("record tool uses: %w", err)
	}
	return nil
}

// insertUses stores uses unless the query dup, over the parameters
// ?1 at, ?2 kind, ?3 query, ?4 tool, ?5 server, ?6 search, ?7 scope and
// ?8 session, finds a row.
func (d *DB) insertUses(ctx context.Context, uses []ToolUse, dup string) error {
	if len(uses) == 0 {
		return nil
	}
	san := newSanitizer(nil)
	return d.withTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO tool_uses (at, kind, query, tool, server, search, scope, session_id, terms, terms_version)
			SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10 WHERE NOT EXISTS (`+dup+`)`)
		if err != nil {
			return err
		}
		defer st.Close()
		var dict *termDict
		if d.analyser != nil {
			dict = &termDict{tx: tx}
			defer dict.close()
		}
		for _, u := range uses {
			if u.Kind != UseFound && u.Kind != UseCalled {
				return fmt.Errorf("tool use kind %q: want %q or %q", u.Kind, UseFound, UseCalled)
			}
			at := u.At
			if at.IsZero() {
				at = d.now()
			}
			q := san.text(cut(u.Query, maxUseQuery))
			// A called use's request is analysed as it is stored, redacted:
			// the terms of what the store keeps, never of a secret.
			var terms []byte
			version := ""
			if dict != nil && u.Kind == UseCalled {
				if terms, err = dict.encode(ctx, d.analyser.Terms(q)); err != nil {
					return err
				}
				version = d.analyser.Version
			}
			if _, err := st.ExecContext(ctx, at.UnixMilli(), u.Kind, q, u.Tool, u.Server, u.Search, u.Scope, u.Session, terms, version); err != nil {
				return err
			}
		}
		return nil
	})
}

// ImportToolUses adds learned pairs from another machine (their At, Query,
// Tool and Server) to scope as 'called' uses of no session, queries
// redacted as RecordToolUses does. A pair already there with the same time,
// request and tool is skipped, so importing a file twice changes nothing.
// It returns how many it added.
func (d *DB) ImportToolUses(ctx context.Context, scope string, uses []ToolUse) (int, error) {
	var before, after int
	count := func(n *int) error {
		return d.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM tool_uses WHERE kind = 'called' AND scope = ?`, scope).Scan(n)
	}
	rows := make([]ToolUse, len(uses))
	for i, u := range uses {
		u.Kind, u.Scope, u.Session, u.Search = UseCalled, scope, "", "import"
		if u.At.IsZero() {
			return 0, fmt.Errorf("import tool uses: pair %d (%q → %s) has no time", i+1, cut(u.Query, 40), u.Tool)
		}
		rows[i] = u
	}
	err := count(&before)
	if err == nil {
		err = d.insertUses(ctx, rows, `SELECT 1 FROM tool_uses WHERE tool = ?4 AND kind = ?2 AND at = ?1 AND query = ?3 AND scope = ?7`)
	}
	if err == nil {
		err = count(&after)
	}
	if err != nil {
		return 0, fmt.Errorf("import tool uses: %w", mapErr(err))
	}
	return after - before, nil
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
// engine reads is set, and the server: At, Kind, Query, Tool and Server.
// Only scope's uses are read. A start reads up to
// 100,000 of them: read newest first along the (kind, at) index and turned
// round here, with three columns, it takes under half of what a sorted
// subquery of every column took (BenchmarkLearnedUses100k).
func (d *DB) LearnedUses(ctx context.Context, scope string, limit int) ([]ToolUse, error) {
	if limit <= 0 {
		limit = -1
	}
	// Sized first: growing a slice of 100,000 uses as rows come costs a
	// fifth more than counting them along the index.
	var n int
	if err := d.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM tool_uses WHERE kind = 'called' AND scope = ?`, scope).Scan(&n); err != nil {
		return nil, fmt.Errorf("count learned tool uses: %w", mapErr(err))
	}
	if limit > 0 {
		n = min(n, limit)
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT at, query, tool, server FROM tool_uses
		WHERE kind = 'called' AND scope = ? ORDER BY at DESC, id DESC LIMIT ?`, scope, limit)
	if err != nil {
		return nil, fmt.Errorf("read learned tool uses: %w", mapErr(err))
	}
	defer rows.Close()
	out := make([]ToolUse, 0, n)
	for rows.Next() {
		u := ToolUse{Kind: UseCalled, Scope: scope}
		var at int64
		if err := rows.Scan(&at, &u.Query, &u.Tool, &u.Server); err != nil {
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

// ToolStats returns every tool's counts in scope, most called first.
func (d *DB) ToolStats(ctx context.Context, scope string) ([]ToolStat, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT tool, server,
		SUM(kind = 'found'), SUM(kind = 'called'), MAX(at)
		FROM tool_uses WHERE scope = ? GROUP BY tool, server ORDER BY SUM(kind = 'called') DESC, SUM(kind = 'found') DESC, tool`, scope)
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

// ForgetToolUses deletes what search learned in scope, of one tool when
// tool is not empty, and returns how many rows it deleted. The app records
// an MCP tool by its SERVER__NAME, older rows and imports by the bare name
// beside their server: tool may be either spelling and matches both. The
// search terms (search_terms) no remaining request has go with them.
func (d *DB) ForgetToolUses(ctx context.Context, scope, tool string) (int64, error) {
	var n int64
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM tool_uses WHERE scope = ?1
			AND (?2 = '' OR tool = ?2 OR server || '__' || tool = ?2 OR tool = server || '__' || ?2)`, scope, tool)
		if err != nil {
			return err
		}
		if n, _ = res.RowsAffected(); n == 0 {
			return nil
		}
		return pruneTerms(ctx, tx)
	})
	if err != nil {
		return 0, fmt.Errorf("forget tool uses: %w", err)
	}
	return n, nil
}
