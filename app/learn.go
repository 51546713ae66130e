package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/store"
	"github.com/agent-dev/agent/tools/search"
)

// maxLearned is how many of the newest learned (query, tool) pairs a run
// loads into its search index.
const maxLearned = 100_000

// Learning reports whether tool search learns from use: on unless
// --no-learn or "learn": false.
func (s Settings) Learning() bool {
	return !s.NoLearn && (s.Learn == nil || *s.Learn)
}

// NewLearner loads what earlier sessions taught into searcher and
// returns the session's Learner, which records this session's searches and
// calls in db and teaches searcher at once. Nil when learning is off.
func NewLearner(ctx context.Context, s Settings, db *store.DB, searcher *search.Searcher, session func() string) agent.Learner {
	if !s.Learning() || db == nil {
		return nil
	}
	// Read in the background: a long-used store holds 100,000 pairs, and
	// the start goes on to the MCP servers meanwhile; the first search
	// waits for them (search.Searcher.LearnFrom).
	searcher.LearnFrom(func() []search.Use {
		uses, err := db.LearnedUses(ctx, maxLearned)
		if err != nil {
			if ctx.Err() == nil {
				slog.Warn("tool search does not learn from earlier sessions this run: cannot read them", "err", err)
			}
			return nil
		}
		return searchUses(uses)
	})
	return &storeLearner{db: db, searcher: searcher, session: session}
}

// LearnedUses is what earlier sessions taught tool search (nothing when
// learning is off or there is no database to read).
func LearnedUses(ctx context.Context, s Settings) []search.Use {
	if !s.Learning() {
		return nil
	}
	db, err := openDB(ctx, s.DBPath)
	if err != nil {
		return nil
	}
	defer db.Close()
	uses, err := db.LearnedUses(ctx, maxLearned)
	if err != nil {
		return nil
	}
	return searchUses(uses)
}

func searchUses(uses []store.ToolUse) []search.Use {
	out := make([]search.Use, len(uses))
	for i, u := range uses {
		out[i] = search.Use{Query: u.Query, Tool: u.Tool, At: u.At}
	}
	return out
}

// storeLearner records uses in the store and teaches the live index the
// calls, so a request like an earlier one finds the tool in this session too.
type storeLearner struct {
	db       *store.DB
	searcher *search.Searcher
	session  func() string
}

func (l *storeLearner) Learn(ctx context.Context, u agent.ToolUse) {
	kind := store.UseFound
	if u.Called {
		kind = store.UseCalled
	}
	now := time.Now()
	rows := make([]store.ToolUse, 0, len(u.Tools))
	for _, t := range u.Tools {
		rows = append(rows, store.ToolUse{At: now, Session: l.session(), Kind: kind, Query: u.Query, Tool: t.Name, Server: t.Server, Search: u.Where})
		if u.Called {
			l.searcher.Learn(search.Use{Query: u.Query, Tool: t.Name, At: now})
		}
	}
	if err := l.db.RecordToolUses(ctx, rows...); err != nil {
		slog.Warn("tool search could not record a use", "err", err)
	}
}

// ToolUsage is one tool's line of the usage statistics in agent tools --json.
type ToolUsage struct {
	Tool     string    `json:"tool"`
	Server   string    `json:"server,omitempty"`
	Found    int       `json:"found"`
	Called   int       `json:"called"`
	LastUsed time.Time `json:"last_used"`
}

// UsageStats reads what tool search learned, per tool, or nothing when
// there is no database to read or learning is off.
func UsageStats(ctx context.Context, s Settings) []ToolUsage {
	if !s.Learning() {
		return nil
	}
	db, err := openDB(ctx, s.DBPath)
	if err != nil {
		return nil
	}
	defer db.Close()
	stats, err := db.ToolStats(ctx)
	if err != nil {
		return nil
	}
	out := make([]ToolUsage, len(stats))
	for i, st := range stats {
		out[i] = ToolUsage{st.Tool, st.Server, st.Found, st.Called, st.LastUsed.UTC()}
	}
	return out
}

// ForgetToolUses deletes every recorded search and call; it returns how
// many there were.
func ForgetToolUses(ctx context.Context, s Settings) (int64, error) {
	db, err := openDB(ctx, s.DBPath)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return db.ForgetToolUses(ctx)
}
