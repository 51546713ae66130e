package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/agent-dev/agent/agent"
)

// queryer is a *sql.DB or a *sql.Tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// StoredMessage is a message as kept: its place and whether it is the
// checkpoint of a message still streaming (or cut off by a crash).
type StoredMessage struct {
	Seq     int64     `json:"seq"`
	Created time.Time `json:"created_at"`
	Partial bool      `json:"partial,omitempty"`
	agent.Message
}

// Discovery is one tool found by one search.
type Discovery struct {
	MessageSeq int64  `json:"message_seq"`
	CallID     string `json:"call_id,omitempty"`
	Tool       string `json:"tool"`
	Where      string `json:"where"`
	Query      string `json:"query,omitempty"`
}

func insertMessage(ctx context.Context, tx *sql.Tx, session string, seq int64, m agent.Message, partial bool, now int64) (int64, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO messages (session_id, seq, role, interrupted, partial, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		session, seq, string(m.Role), m.Interrupted, partial, now)
	if err != nil {
		return 0, fmt.Errorf("insert message %d: %w", seq, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	if len(m.Parts) == 0 {
		return id, nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO parts (message_id, idx, type, text, json, raw_provider, raw_api, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer stmt.Close()
	for i, p := range m.Parts {
		row, err := encodePart(p)
		if err != nil {
			return 0, err
		}
		var text, js, raw any
		if row.text != nil {
			text = *row.text
		}
		if row.json != nil {
			js = string(row.json)
		}
		if row.raw != nil {
			raw = row.raw
		}
		if _, err := stmt.ExecContext(ctx, id, i, row.typ, text, js, row.rawProvider, row.rawAPI, raw); err != nil {
			return 0, fmt.Errorf("insert part %d of message %d: %w", i, seq, err)
		}
	}
	return id, nil
}

// insertDiscoveries records the tools found by the search results of m. The
// query comes from the matching search call, in m or in the message before
// (a client search is answered in the next user message).
func insertDiscoveries(ctx context.Context, tx *sql.Tx, session string, seq int64, m agent.Message, prev *agent.Message) error {
	for _, p := range m.Parts {
		r := p.SearchResult
		if p.Type != agent.PartSearchResult || r == nil || len(r.Tools) == 0 {
			continue
		}
		query := findQuery(m, r.CallID)
		if query == "" && prev != nil {
			query = findQuery(*prev, r.CallID)
		}
		for _, t := range r.Tools {
			if _, err := tx.ExecContext(ctx, `INSERT INTO discoveries (session_id, message_seq, call_id, tool, "where", query) VALUES (?, ?, ?, ?, ?, ?)`,
				session, seq, r.CallID, t, r.Where, query); err != nil {
				return fmt.Errorf("insert discovery %s: %w", t, err)
			}
		}
	}
	return nil
}

func findQuery(m agent.Message, callID string) string {
	for _, p := range m.Parts {
		if p.Type == agent.PartSearchCall && p.SearchCall != nil && p.SearchCall.ID == callID {
			return p.SearchCall.Text()
		}
	}
	return ""
}

// loadMessages reads a session's messages in order, with their parts, in
// one query. onlySeq > 0 reads that message alone.
func loadMessages(ctx context.Context, q queryer, session string, onlySeq int64) ([]StoredMessage, error) {
	query := `SELECT m.seq, m.role, m.interrupted, m.partial, m.created_at, p.type, p.text, p.json, p.raw_provider, p.raw_api, p.raw
		FROM messages m LEFT JOIN parts p ON p.message_id = m.id
		WHERE m.session_id = ?`
	args := []any{session}
	if onlySeq > 0 {
		query += ` AND m.seq = ?`
		args = append(args, onlySeq)
	}
	rows, err := q.QueryContext(ctx, query+` ORDER BY m.seq, p.idx`, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []StoredMessage
	for rows.Next() {
		var (
			seq, created         int64
			role                 string
			interrupted, partial bool
			typ, text            sql.NullString
			js                   sql.RawBytes // decoded before the next row
			rawProvider, rawAPI  sql.NullString
			raw                  []byte
		)
		if err := rows.Scan(&seq, &role, &interrupted, &partial, &created, &typ, &text, &js, &rawProvider, &rawAPI, &raw); err != nil {
			return nil, mapErr(err)
		}
		if n := len(out); n == 0 || out[n-1].Seq != seq {
			out = append(out, StoredMessage{Seq: seq, Created: fromMS(created), Partial: partial,
				Message: agent.Message{Role: agent.Role(role), Interrupted: interrupted}})
		}
		if !typ.Valid {
			continue // a message without parts
		}
		var prov, api, txt *string
		if text.Valid {
			txt = &text.String
		}
		if rawProvider.Valid {
			prov = &rawProvider.String
		}
		if rawAPI.Valid {
			api = &rawAPI.String
		}
		p, err := decodePart(typ.String, txt, js, prov, api, raw)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", seq, err)
		}
		last := &out[len(out)-1]
		last.Parts = append(last.Parts, p)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	return out, nil
}

func loadMeta(ctx context.Context, q queryer, id string) (SessionMeta, error) {
	var (
		m                SessionMeta
		created, updated int64
		settings         string
		parent           sql.NullString
	)
	err := q.QueryRowContext(ctx, `SELECT id, title, created_at, updated_at, workdir, provider, api, model, settings, parent_session_id FROM sessions WHERE id = ?`, id).
		Scan(&m.ID, &m.Title, &created, &updated, &m.Workdir, &m.Provider, &m.API, &m.Model, &settings, &parent)
	if errors.Is(err, sql.ErrNoRows) {
		return m, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return m, mapErr(err)
	}
	m.Created, m.Updated, m.ParentID = fromMS(created), fromMS(updated), parent.String
	if err := json.Unmarshal([]byte(settings), &m.Settings); err != nil {
		return m, fmt.Errorf("session %s: decode settings: %w", id, err)
	}
	return m, nil
}

func (d *DB) discoveries(ctx context.Context, q queryer, id string) ([]Discovery, error) {
	rows, err := q.QueryContext(ctx, `SELECT message_seq, call_id, tool, "where", query FROM discoveries WHERE session_id = ? ORDER BY message_seq, id`, id)
	if err != nil {
		return nil, fmt.Errorf("read discoveries of session %s: %w", id, mapErr(err))
	}
	defer rows.Close()
	var out []Discovery
	for rows.Next() {
		var x Discovery
		if err := rows.Scan(&x.MessageSeq, &x.CallID, &x.Tool, &x.Where, &x.Query); err != nil {
			return nil, mapErr(err)
		}
		out = append(out, x)
	}
	return out, mapErr(rows.Err())
}

func isConstraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}

// nullable stores "" as NULL (a column with a foreign key).
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// children lists the sessions whose parent is id, oldest first.
func children(ctx context.Context, q queryer, id string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT id FROM sessions WHERE parent_session_id = ? ORDER BY created_at, rowid`, id)
	if err != nil {
		return nil, fmt.Errorf("read the subagent sessions of %s: %w", id, mapErr(err))
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, mapErr(err)
		}
		out = append(out, c)
	}
	return out, mapErr(rows.Err())
}
