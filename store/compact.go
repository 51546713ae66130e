package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agent-dev/agent/agent"
)

var _ agent.CompactionStore = (*Session)(nil)

// SaveCompaction records a compaction of this session: the summary, where
// it ends in the history and the tools it keeps found. The messages stay.
func (s *Session) SaveCompaction(ctx context.Context, c agent.Compaction) error {
	found, err := json.Marshal(nonNil(c.Found))
	if err != nil {
		return fmt.Errorf("save compaction: %w", err)
	}
	usage, err := json.Marshal(c.Usage)
	if err != nil {
		return fmt.Errorf("save compaction: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	auto := 0
	if c.Auto {
		auto = 1
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO compactions (session_id, seq, boundary, summary, found, focus, auto,
			before_tokens, after_tokens, usage, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s.meta.ID, c.Seq, c.Boundary, c.Summary, string(found), c.Focus, auto, c.Before, c.After, string(usage), ms(s.db.now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("save compaction of session %s: %w", s.meta.ID, err)
	}
	return nil
}

// LastCompaction is the compaction a resume applies, nil when there is none.
func (s *Session) LastCompaction(ctx context.Context) (*agent.Compaction, error) {
	cs, err := s.db.compactions(ctx, s.db.sql, s.meta.ID, true)
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	return &cs[0], nil
}

// Compactions lists a session's compactions, oldest first.
func (d *DB) Compactions(ctx context.Context, idOrPrefix string) ([]agent.Compaction, error) {
	id, err := d.Resolve(ctx, idOrPrefix)
	if err != nil {
		return nil, err
	}
	return d.compactions(ctx, d.sql, id, false)
}

func (d *DB) compactions(ctx context.Context, q queryer, id string, lastOnly bool) ([]agent.Compaction, error) {
	query := `SELECT seq, boundary, summary, found, focus, auto, before_tokens, after_tokens, usage FROM compactions
		WHERE session_id = ? ORDER BY seq`
	if lastOnly {
		query = `SELECT seq, boundary, summary, found, focus, auto, before_tokens, after_tokens, usage FROM compactions
		WHERE session_id = ? ORDER BY seq DESC LIMIT 1`
	}
	rows, err := q.QueryContext(ctx, query, id)
	if err != nil {
		return nil, fmt.Errorf("read compactions of session %s: %w", id, mapErr(err))
	}
	defer rows.Close()
	out := []agent.Compaction{}
	for rows.Next() {
		var c agent.Compaction
		var found, usage string
		var auto int
		if err := rows.Scan(&c.Seq, &c.Boundary, &c.Summary, &found, &c.Focus, &auto, &c.Before, &c.After, &usage); err != nil {
			return nil, fmt.Errorf("read compactions of session %s: %w", id, mapErr(err))
		}
		c.Auto = auto != 0
		if err := errors.Join(json.Unmarshal([]byte(found), &c.Found), json.Unmarshal([]byte(usage), &c.Usage)); err != nil {
			return nil, fmt.Errorf("read compactions of session %s: %w", id, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read compactions of session %s: %w", id, mapErr(err))
	}
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
