package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/agent-dev/agent/agent"
)

// Session is one stored session opened for writing: it holds the session's
// writer lock until Close and implements agent.Store.
type Session struct {
	db    *DB
	token string

	mu      sync.Mutex
	meta    SessionMeta
	nextSeq int64 // seq of the next completed message
	nextReq int64
	prev    *agent.Message
	closed  bool

	hbStop chan struct{}
	hbDone chan struct{}
}

var _ agent.Store = (*Session)(nil)

// Create stores a new session and opens it for writing. ID, Created and
// Updated are filled in; Settings are sanitised before they are stored.
func (d *DB) Create(ctx context.Context, m SessionMeta) (*Session, error) {
	settings, err := m.Settings.sanitized(nil)
	if err != nil {
		return nil, err
	}
	m.Created = d.now()
	m.Updated = m.Created
	m.Title = titleFrom(m.Title)
	// Decoded into new settings, not into m's: json.Unmarshal fills a
	// slice in place, and m's share their arrays with the caller's (a
	// server's args are the running server's), which got the redacted
	// values back.
	if m.Settings, err = decodeSettings(settings); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	token := NewID() + NewID()
	for attempt := 0; ; attempt++ {
		m.ID = NewID()
		err = d.withTx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, title, created_at, updated_at, workdir, provider, api, model, settings, parent_session_id)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				m.ID, m.Title, ms(m.Created), ms(m.Updated), m.Workdir, m.Provider, m.API, m.Model, string(settings), nullable(m.ParentID)); err != nil {
				return err
			}
			return d.acquire(ctx, tx, m.ID, token)
		})
		// An id collision is a constraint error: draw again.
		if err != nil && attempt < 3 && isConstraint(err) {
			continue
		}
		break
	}
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	s := &Session{db: d, token: token, meta: m, nextSeq: 1, nextReq: 1}
	s.startHeartbeat()
	return s, nil
}

// OpenSession opens the session whose id is idOrPrefix, or starts with it,
// for writing. A session held by another live process gives a *LockedError;
// a cut-off partial message is kept as an interrupted one.
func (d *DB) OpenSession(ctx context.Context, idOrPrefix string) (*Session, error) {
	id, err := d.Resolve(ctx, idOrPrefix)
	if err != nil {
		return nil, err
	}
	s := &Session{db: d, token: NewID() + NewID()}
	err = d.withTx(ctx, func(tx *sql.Tx) error {
		if err := d.acquire(ctx, tx, id, s.token); err != nil {
			return err
		}
		m, err := loadMeta(ctx, tx, id)
		if err != nil {
			return err
		}
		s.meta = m
		// A partial left by a crash becomes a completed, interrupted message.
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET partial = 0, interrupted = 1
			WHERE session_id = ? AND partial = 1 AND seq = (SELECT max(seq) FROM messages WHERE session_id = ?)`, id, id); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = ?`, id).Scan(&s.nextSeq); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) + 1 FROM requests WHERE session_id = ?`, id).Scan(&s.nextReq); err != nil {
			return err
		}
		if s.nextSeq > 1 {
			last, err := loadMessages(ctx, tx, id, s.nextSeq-1)
			if err != nil {
				return err
			}
			if len(last) == 1 {
				s.prev = &last[0].Message
			}
		}
		return nil
	})
	if err != nil {
		var le *LockedError
		if errors.As(err, &le) {
			return nil, le // it names the session already
		}
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	s.startHeartbeat()
	return s, nil
}

// Latest opens the most recently updated session started in workdir, for
// --continue; a subagent's session is not one (resume it by its id), nor
// is one with no message (a run killed before its prompt was saved leaves
// one; List leaves them out too). ErrNotFound when there is none.
func (d *DB) Latest(ctx context.Context, workdir string) (*Session, error) {
	var id string
	err := d.sql.QueryRowContext(ctx, `SELECT id FROM sessions s WHERE workdir = ? AND parent_session_id IS NULL
		AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id) ORDER BY updated_at DESC, rowid DESC LIMIT 1`, workdir).Scan(&id)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("no session to continue in %s: %w", workdir, ErrNotFound)
		}
		return nil, fmt.Errorf("find latest session: %w", mapErr(err))
	}
	return d.OpenSession(ctx, id)
}

func (s *Session) startHeartbeat() {
	s.hbStop, s.hbDone = make(chan struct{}), make(chan struct{})
	s.db.openMu.Lock()
	if s.db.open == nil {
		s.db.open = map[*Session]bool{}
	}
	s.db.open[s] = true
	s.db.openMu.Unlock()
	// The id is read here, not in the loop: UpdateMeta rewrites s.meta
	// under s.mu, which the loop does not hold (a data race under -race,
	// cmd TestTUIVertexModelSwitches).
	go s.heartbeatLoop(s.meta.ID)
}

// ID is the session's id.
func (s *Session) ID() string { return s.meta.ID }

// Meta returns the session's description.
func (s *Session) Meta() SessionMeta {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.meta
}

// UpdateMeta stores a changed title, provider, API, model or settings (a
// model switch mid-session, say). ID, Created and Workdir are kept.
func (s *Session) UpdateMeta(ctx context.Context, m SessionMeta) error {
	settings, err := m.Settings.sanitized(nil)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m.ID, m.Created, m.Workdir, m.ParentID = s.meta.ID, s.meta.Created, s.meta.Workdir, s.meta.ParentID
	m.Title = titleFrom(m.Title)
	m.Updated = s.db.now()
	if m.Settings, err = decodeSettings(settings); err != nil {
		return fmt.Errorf("update session %s: %w", m.ID, err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ?, updated_at = ?, provider = ?, api = ?, model = ?, settings = ? WHERE id = ?`,
			m.Title, ms(m.Updated), m.Provider, m.API, m.Model, string(settings), m.ID)
		return err
	})
	if err != nil {
		return fmt.Errorf("update session %s: %w", m.ID, err)
	}
	s.meta = m
	return nil
}

// write runs fn in a transaction after checking the lock is still ours.
// Callers hold s.mu.
func (s *Session) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.closed {
		return fmt.Errorf("session %s is closed", s.meta.ID)
	}
	return s.db.withTx(ctx, func(tx *sql.Tx) error {
		if err := s.db.holding(ctx, tx, s.meta.ID, s.token); err != nil {
			return err
		}
		return fn(tx)
	})
}

// AppendMessage commits one completed message in its own transaction. It
// replaces the partial checkpoint of the same message, if any.
func (s *Session) AppendMessage(ctx context.Context, m agent.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.db.now()
	title := ""
	if s.meta.Title == "" && m.Role == agent.RoleUser {
		// The first paragraph of the first text: what follows a blank
		// line is material the prompt brought along (an @file's text,
		// piped stdin), and a later text part is a hook's context
		// ("UserPromptSubmit hook context: ..."), which m.Text() would
		// run on without a space.
		text := ""
		for _, p := range m.Parts {
			if p.Type == agent.PartText && strings.TrimSpace(p.Text) != "" {
				text = p.Text
				break
			}
		}
		first, _, _ := strings.Cut(strings.TrimSpace(text), "\n\n")
		title = titleFrom(first)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := s.dropPartial(ctx, tx); err != nil {
			return err
		}
		if _, err := insertMessage(ctx, tx, s.meta.ID, s.nextSeq, m, false, ms(now)); err != nil {
			return err
		}
		if err := insertDiscoveries(ctx, tx, s.meta.ID, s.nextSeq, m, s.prev); err != nil {
			return err
		}
		if title != "" {
			_, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ?, title = ? WHERE id = ?`, ms(now), title, s.meta.ID)
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ? WHERE id = ?`, ms(now), s.meta.ID)
		return err
	})
	if err != nil {
		return fmt.Errorf("append message to session %s: %w", s.meta.ID, err)
	}
	s.nextSeq++
	s.prev = &m
	s.meta.Updated = now
	if title != "" {
		s.meta.Title = title
	}
	return nil
}

// SavePartial checkpoints the message being made: the assistant message
// being streamed (a message without a role is one), or the user message
// answering tool calls that have started. It is kept marked partial; on the
// next open it becomes an interrupted message.
func (s *Session) SavePartial(ctx context.Context, m agent.Message) error {
	if len(m.Parts) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := s.dropPartial(ctx, tx); err != nil {
			return err
		}
		if m.Role == "" {
			m.Role = agent.RoleAssistant
		}
		m.Interrupted = true
		_, err := insertMessage(ctx, tx, s.meta.ID, s.nextSeq, m, true, ms(s.db.now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("save partial message of session %s: %w", s.meta.ID, err)
	}
	return nil
}

// dropPartial deletes the checkpoint of the message being streamed, which
// sits at the next seq. Keyed by seq, not by a remembered row, so a failed
// transaction can leave nothing stale behind.
func (s *Session) dropPartial(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ? AND seq = ? AND partial = 1`, s.meta.ID, s.nextSeq)
	return err
}

// RecordRequest keeps the usage and tools hash of one provider request.
func (s *Session) RecordRequest(ctx context.Context, r agent.RequestRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var uses any
	if len(r.Usage.ServerToolUses) > 0 {
		b, _ := json.Marshal(r.Usage.ServerToolUses)
		uses = string(b)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO requests (session_id, seq, provider, api, model, input_tokens, output_tokens,
			cache_read, cache_write, server_tool_uses, tools_hash, resolved, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s.meta.ID, s.nextReq, r.Provider, r.API, r.Model, r.Usage.InputTokens, r.Usage.OutputTokens,
			r.Usage.CacheReadTokens, r.Usage.CacheWriteTokens, uses, r.ToolsHash, string(r.Resolved), ms(s.db.now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("record request of session %s: %w", s.meta.ID, err)
	}
	s.nextReq++
	return nil
}

// LoadRepaired loads the history for a resume and repairs it in the store:
// dangling tool calls get synthetic interrupted results
// (agent.RepairHistory), and the repaired tail replaces the stored one, so
// the next resume loads the same history the live session then sends.
func (s *Session) LoadRepaired(ctx context.Context) ([]agent.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows, err := loadMessages(ctx, s.db.sql, s.meta.ID, 0)
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", s.meta.ID, err)
	}
	msgs := make([]agent.Message, len(rows))
	for i, r := range rows {
		msgs[i] = r.Message
	}
	fixed := agent.RepairHistory(msgs)
	from := firstDiff(msgs, fixed)
	if from < 0 {
		return fixed, nil
	}
	seq := int64(from + 1)
	if from < len(rows) {
		seq = rows[from].Seq
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ? AND seq >= ?`, s.meta.ID, seq); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM discoveries WHERE session_id = ? AND message_seq >= ?`, s.meta.ID, seq); err != nil {
			return err
		}
		now := ms(s.db.now())
		for i, m := range fixed[from:] {
			var prev *agent.Message
			if from+i > 0 {
				prev = &fixed[from+i-1]
			}
			if _, err := insertMessage(ctx, tx, s.meta.ID, seq+int64(i), m, false, now); err != nil {
				return err
			}
			if err := insertDiscoveries(ctx, tx, s.meta.ID, seq+int64(i), m, prev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store repaired history of session %s: %w", s.meta.ID, err)
	}
	s.nextSeq = seq + int64(len(fixed)-from)
	if len(fixed) > 0 {
		s.prev = &fixed[len(fixed)-1]
	}
	return fixed, nil
}

// firstDiff is the first index where b differs from a, or -1.
func firstDiff(a, b []agent.Message) int {
	for i := range b {
		if i >= len(a) || !reflect.DeepEqual(a[i], b[i]) {
			return i
		}
	}
	if len(a) != len(b) {
		return len(b)
	}
	return -1
}

// LastToolsHash is the tools hash of the last request sent with one, ""
// if none. A compaction's summary request has none (agent.Session.Compact).
func (s *Session) LastToolsHash(ctx context.Context) (string, error) {
	var h string
	err := s.db.sql.QueryRowContext(ctx, `SELECT tools_hash FROM requests WHERE session_id = ? AND tools_hash != '' ORDER BY seq DESC LIMIT 1`, s.meta.ID).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read tools hash of session %s: %w", s.meta.ID, mapErr(err))
	}
	return h, nil
}

// Discoveries lists the tools searches found in this session, in order.
func (s *Session) Discoveries(ctx context.Context) ([]Discovery, error) {
	return s.db.discoveries(ctx, s.db.sql, s.meta.ID)
}

// Close releases the writer lock. The session may not be written after.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	close(s.hbStop)
	<-s.hbDone
	s.db.openMu.Lock()
	delete(s.db.open, s)
	s.db.openMu.Unlock()
	_, err := s.db.sql.ExecContext(context.Background(), `DELETE FROM session_locks WHERE session_id = ? AND token = ?`, s.meta.ID, s.token)
	if err != nil {
		return fmt.Errorf("release session %s: %w", s.meta.ID, mapErr(err))
	}
	return nil
}
