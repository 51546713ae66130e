package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agent-dev/agent/agent"
)

// Resolve turns an id or a unique id prefix into the session's id. An
// ambiguous prefix names the sessions it matches.
func (d *DB) Resolve(ctx context.Context, idOrPrefix string) (string, error) {
	p := strings.TrimSpace(idOrPrefix)
	if p == "" {
		return "", fmt.Errorf("empty session id: %w", ErrNotFound)
	}
	var id string
	err := d.sql.QueryRowContext(ctx, `SELECT id FROM sessions WHERE id = ?`, p).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("find session %s: %w", p, mapErr(err))
	}
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(p)
	rows, err := d.sql.QueryContext(ctx, `SELECT id, title FROM sessions WHERE id LIKE ? ESCAPE '\' ORDER BY updated_at DESC LIMIT 11`, esc+"%")
	if err != nil {
		return "", fmt.Errorf("find session %s: %w", p, mapErr(err))
	}
	defer rows.Close()
	var matches []string
	for rows.Next() {
		var mid, title string
		if err := rows.Scan(&mid, &title); err != nil {
			return "", mapErr(err)
		}
		matches = append(matches, fmt.Sprintf("%s (%s)", mid, title))
		id = mid
	}
	if err := rows.Err(); err != nil {
		return "", mapErr(err)
	}
	switch len(matches) {
	case 0:
		return "", &kindError{fmt.Sprintf("no session %q: see agent sessions for the IDs", p), ErrNotFound}
	case 1:
		return id, nil
	}
	more := ""
	if len(matches) > 10 {
		matches, more = matches[:10], ", …"
	}
	return "", &kindError{fmt.Sprintf("session ID prefix %q matches %s%s: give more characters", p, strings.Join(matches, ", "), more), ErrAmbiguous}
}

// kindError is an error of a kind (errors.Is) whose text already says it
// all: wrapped with %w the kind's text came after, "no session "x" (see
// agent sessions): not found", the reason twice.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// ListOptions selects sessions to list.
type ListOptions struct {
	// Limit caps the list (default 50); All lifts the cap.
	Limit int
	All   bool
	// Workdir, when set, lists only sessions started there.
	Workdir string
	// Empty lists sessions with no message too. Without it they are left
	// out: nothing in one can be resumed, and a run killed before its
	// prompt was saved (a first -p run creates its session while its
	// servers list) leaves one behind.
	Empty bool
}

// Summary is one row of the session list.
type Summary struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Created  time.Time `json:"created_at"`
	Updated  time.Time `json:"updated_at"`
	Workdir  string    `json:"workdir"`
	Provider string    `json:"provider"`
	Model    string    `json:"model"`
	Messages int       `json:"messages"`
	Searches int       `json:"searches"`
	// ParentID is set on a subagent's session: the session whose
	// run_agent call ran it.
	ParentID string `json:"parent_session_id,omitempty"`
}

// List returns sessions, most recently updated first.
func (d *DB) List(ctx context.Context, o ListOptions) ([]Summary, error) {
	limit := o.Limit
	if limit <= 0 {
		limit = 50
	}
	if o.All {
		limit = -1 // no limit in SQLite
	}
	q := `SELECT s.id, s.title, s.created_at, s.updated_at, s.workdir, s.provider, s.model, coalesce(s.parent_session_id, ''),
		(SELECT count(*) FROM messages m WHERE m.session_id = s.id),
		(SELECT count(*) FROM messages m JOIN parts p ON p.message_id = m.id WHERE m.session_id = s.id AND p.type = 'search_call')
		FROM sessions s`
	var args []any
	var where []string
	if o.Workdir != "" {
		where = append(where, `s.workdir = ?`)
		args = append(args, o.Workdir)
	}
	if !o.Empty {
		where = append(where, `EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)`)
	}
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, ` AND `)
	}
	q += ` ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?`
	args = append(args, limit)
	rows, err := d.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", mapErr(err))
	}
	defer rows.Close()
	out := []Summary{}
	for rows.Next() {
		var s Summary
		var c, u int64
		if err := rows.Scan(&s.ID, &s.Title, &c, &u, &s.Workdir, &s.Provider, &s.Model, &s.ParentID, &s.Messages, &s.Searches); err != nil {
			return nil, fmt.Errorf("list sessions: %w", mapErr(err))
		}
		s.Created, s.Updated = fromMS(c), fromMS(u)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", mapErr(err))
	}
	return out, nil
}

// Delete removes a session and everything stored with it. A session open
// in another live process is refused.
func (d *DB) Delete(ctx context.Context, idOrPrefix string) (string, error) {
	id, err := d.Resolve(ctx, idOrPrefix)
	if err != nil {
		return "", err
	}
	err = d.withTx(ctx, func(tx *sql.Tx) error {
		if l, held, err := readLock(ctx, tx, id); err != nil {
			return err
		} else if held && !d.stale(l) {
			return &LockedError{SessionID: id, PID: l.pid, Host: l.host, Since: fromMS(l.acquired)}
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		return err
	})
	var le *LockedError
	if errors.As(err, &le) {
		return "", fmt.Errorf("cannot delete: %w", le)
	}
	if err != nil {
		return "", fmt.Errorf("delete session %s: %w", id, err)
	}
	return id, nil
}

// Request is one stored provider request.
type Request struct {
	Seq            int64          `json:"seq"`
	Provider       string         `json:"provider"`
	API            string         `json:"api"`
	Model          string         `json:"model"`
	InputTokens    int            `json:"input_tokens"`
	OutputTokens   int            `json:"output_tokens"`
	CacheRead      int            `json:"cache_read_tokens"`
	CacheWrite     int            `json:"cache_write_tokens"`
	ServerToolUses map[string]int `json:"server_tool_uses,omitempty"`
	ToolsHash      string         `json:"tools_hash"`
	Resolved       string         `json:"resolved_search"`
	Created        time.Time      `json:"created_at"`
	// SessionID is set on a subagent's request (Export.ChildRequests):
	// the child session that sent it.
	SessionID string `json:"session_id,omitempty"`
}

// Usage is the request's usage as the agent counts it.
func (r Request) Usage() agent.Usage {
	return agent.Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
		CacheReadTokens: r.CacheRead, CacheWriteTokens: r.CacheWrite, ServerToolUses: r.ServerToolUses}
}

// Export is a whole session, as `agent sessions show --json` prints it.
type Export struct {
	Session     SessionMeta     `json:"session"`
	Messages    []StoredMessage `json:"messages"`
	Discoveries []Discovery     `json:"discoveries"`
	Requests    []Request       `json:"requests"`
	// Compactions list where the history was summarised in what is sent;
	// Messages still hold every message.
	Compactions []agent.Compaction `json:"compactions"`
	// Children are the sessions this one's subagents ran (their
	// Session.ParentID is this session's id).
	Children []string `json:"child_sessions"`
	// ChildRequests are the requests those sessions sent, in order: the
	// parent's totals include them, as they did while it ran.
	ChildRequests []Request `json:"child_requests,omitempty"`
}

// Export reads a whole session without taking its lock, so a session open
// elsewhere can still be shown. All reads share one snapshot.
func (d *DB) Export(ctx context.Context, idOrPrefix string) (*Export, error) {
	id, err := d.Resolve(ctx, idOrPrefix)
	if err != nil {
		return nil, err
	}
	tx, err := d.sql.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("export session %s: %w", id, mapErr(err))
	}
	defer func() { _ = tx.Rollback() }() // read-only: nothing to undo
	e := &Export{Messages: []StoredMessage{}, Discoveries: []Discovery{}, Requests: []Request{}}
	if e.Session, err = loadMeta(ctx, tx, id); err != nil {
		return nil, fmt.Errorf("export session %s: %w", id, err)
	}
	msgs, err := loadMessages(ctx, tx, id, 0)
	if err != nil {
		return nil, fmt.Errorf("export session %s: %w", id, err)
	}
	e.Messages = append(e.Messages, msgs...)
	if e.Children, err = children(ctx, tx, id); err != nil {
		return nil, err
	}
	disc, err := d.discoveries(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	e.Discoveries = append(e.Discoveries, disc...)
	if e.Requests, err = requests(ctx, tx, `session_id = ?`, id); err != nil {
		return nil, fmt.Errorf("export session %s: %w", id, err)
	}
	if e.ChildRequests, err = requests(ctx, tx, `session_id IN (SELECT id FROM sessions WHERE parent_session_id = ?)`, id); err != nil {
		return nil, fmt.Errorf("export session %s: %w", id, err)
	}
	for i := range e.Requests {
		e.Requests[i].SessionID = "" // the session's own
	}
	if e.Compactions, err = d.compactions(ctx, tx, id, false); err != nil {
		return nil, err
	}
	return e, nil
}

// requests reads the stored requests where (a condition on session_id)
// holds, each with its session's id, in the order they were sent.
func requests(ctx context.Context, q queryer, where string, args ...any) ([]Request, error) {
	rows, err := q.QueryContext(ctx, `SELECT session_id, seq, provider, api, model, input_tokens, output_tokens, cache_read, cache_write,
		server_tool_uses, tools_hash, resolved, created_at FROM requests WHERE `+where+` ORDER BY created_at, rowid`, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	out := []Request{}
	for rows.Next() {
		var r Request
		var uses sql.NullString
		var created int64
		if err := rows.Scan(&r.SessionID, &r.Seq, &r.Provider, &r.API, &r.Model, &r.InputTokens, &r.OutputTokens, &r.CacheRead, &r.CacheWrite,
			&uses, &r.ToolsHash, &r.Resolved, &created); err != nil {
			return nil, mapErr(err)
		}
		if uses.Valid {
			_ = json.Unmarshal([]byte(uses.String), &r.ServerToolUses)
		}
		r.Created = fromMS(created)
		out = append(out, r)
	}
	return out, mapErr(rows.Err())
}
