package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/internal/suggest"
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

// learnScope is where this run's learning is kept: the demo's scripted
// searches and calls apart from real ones.
func (s Settings) learnScope() string {
	if s.Demo {
		return store.ScopeDemo
	}
	return ""
}

// relevantDepth is how far down the engine's ranking of the user's request
// a called tool must be for the call to teach anything.
const relevantDepth = 20

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
	searcher.LearnFrom(func() ([]search.Use, *search.Analysis) {
		set, err := db.LearnedAnalysed(ctx, s.learnScope(), maxLearned)
		if err != nil {
			if ctx.Err() == nil {
				slog.Warn("tool search does not learn from earlier sessions this run: cannot read them", "err", err)
			}
			return nil, nil
		}
		if set.Stale > 0 {
			// Requests stored before they were kept analysed, or under an
			// earlier analysis: this start analyses their text, and they
			// are stored analysed for the next.
			go func() {
				if _, err := db.AnalyseStaleUses(ctx, s.learnScope()); err != nil && ctx.Err() == nil {
					slog.Debug("tool search: learned requests not stored analysed", "err", err)
				}
			}()
		}
		return searchUses(set)
	})
	return &storeLearner{db: db, searcher: searcher, session: session, scope: s.learnScope()}
}

// LearnedUses is what earlier sessions taught tool search (nothing when
// learning is off or there is no database to read), with the dictionary
// of the requests stored analysed.
func LearnedUses(ctx context.Context, s Settings) ([]search.Use, *search.Analysis) {
	if !s.Learning() {
		return nil, nil
	}
	db, err := openDB(ctx, s.DBPath)
	if err != nil {
		return nil, nil
	}
	defer db.Close()
	set, err := db.LearnedAnalysed(ctx, s.learnScope(), maxLearned)
	if err != nil {
		return nil, nil
	}
	return searchUses(set)
}

// requestAnalyser has the store keep learned requests analysed as the
// index learns them (search.RequestTerms), so a start reads their terms.
func requestAnalyser() store.RequestAnalyser {
	stemmer := search.DefaultConfig().Stemmer
	return store.RequestAnalyser{
		Version: search.AnalysisVersion(stemmer),
		Terms:   func(q string) []string { return search.RequestTerms(stemmer, q) },
	}
}

func searchUses(set store.LearnedSet) ([]search.Use, *search.Analysis) {
	out := make([]search.Use, len(set.Uses))
	for i, u := range set.Uses {
		out[i] = search.Use{Query: u.Query, Tool: u.Tool, At: u.At, Analysed: u.Terms}
	}
	if set.Terms == nil {
		return out, nil
	}
	return out, &search.Analysis{Version: set.Version, Terms: set.Terms}
}

// storeLearner records uses in the store and teaches the live index the
// calls, so a request like an earlier one finds the tool in this session too.
type storeLearner struct {
	db       *store.DB
	searcher *search.Searcher
	session  func() string
	scope    string
}

func (l *storeLearner) Learn(ctx context.Context, u agent.ToolUse) {
	kind := store.UseFound
	if u.Called {
		kind = store.UseCalled
	}
	now := time.Now()
	rows := make([]store.ToolUse, 0, len(u.Tools))
	for _, t := range u.Tools {
		if u.Called && !sharesWord(u.Query, u.Search) && !l.ranks(u.Query, t) {
			continue
		}
		rows = append(rows, store.ToolUse{At: now, Session: l.session(), Kind: kind, Query: u.Query, Tool: t.Name, Server: t.Server, Search: u.Where, Scope: l.scope})
		if u.Called {
			l.searcher.Learn(search.Use{Query: u.Query, Tool: t.Name, At: now})
		}
	}
	if err := l.db.RecordToolUses(ctx, rows...); err != nil {
		slog.Warn("tool search could not record a use", "err", err)
	}
}

// A call teaches only when it served the user's request: the search that
// found the tool shares a word with the request (sharesWord), or the
// engine ranks the tool among the first relevantDepth for the request
// (ranks). A tool the model searched for and called because a server's text
// told it to (a description saying "always call ping first", a result
// saying "now call export") is neither: learned, that call would steer
// later requests to the server that asked. What a learned call can do is
// bounded by the engine too (search.Config.LearnTrust).

// ranks reports whether the engine ranks t among the first relevantDepth
// tools for request.
func (l *storeLearner) ranks(request string, t agent.UsedTool) bool {
	hits, err := l.searcher.Index().Search(request, search.Options{Limit: relevantDepth, Mode: search.ModeBM25})
	if err != nil {
		return false
	}
	return slices.ContainsFunc(hits, func(h search.Hit) bool { return h.Name == t.Name && h.Server == t.Server })
}

// sharesWord reports whether a and b have a word of three letters or more
// in common, other than the filler of requests, plurals aside.
func sharesWord(a, b string) bool {
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if w = strings.TrimSuffix(w, "s"); len(w) >= 3 && !fillerWords[w] {
				m[w] = true
			}
		}
		return m
	}
	wa := words(a)
	for w := range words(b) {
		if wa[w] {
			return true
		}
	}
	return false
}

// fillerWords say nothing about what a request is for (plurals trimmed).
var fillerWords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "thi": true, "that": true, "you": true,
	"please": true, "can": true, "could": true, "would": true, "what": true, "how": true, "need": true, "want": true,
	"use": true, "tool": true, "call": true, "first": true, "now": true, "all": true, "any": true, "from": true, "into": true}

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
	stats, err := db.ToolStats(ctx, s.learnScope())
	if err != nil {
		return nil
	}
	out := make([]ToolUsage, len(stats))
	for i, st := range stats {
		out[i] = ToolUsage{st.Tool, st.Server, st.Found, st.Called, st.LastUsed.UTC()}
	}
	return out
}

// ForgetToolUses deletes every recorded search and call, or those of one
// tool (its name, or server__name) when tool is not empty; it returns how
// many there were. --demo forgets the demo's.
func ForgetToolUses(ctx context.Context, s Settings, tool string) (int64, error) {
	db, err := openDB(ctx, s.DBPath)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	n, err := db.ForgetToolUses(ctx, s.learnScope(), tool)
	if err != nil || n > 0 || tool == "" {
		return n, err
	}
	// Nothing of that name: a typo reads as one, not as "forgot 0".
	e := &UnknownToolError{Tool: tool}
	if stats, err := db.ToolStats(ctx, s.learnScope()); err == nil {
		names := make([]string, 0, len(stats))
		for _, st := range stats {
			names = append(names, st.Tool)
			if st.Server != "" && !strings.Contains(st.Tool, "__") {
				names = append(names, st.Server+"__"+st.Tool)
			}
		}
		e.Near = suggest.Nearest(tool, names)
	}
	return 0, &UsageError{e}
}

// UnknownToolError is agent tools forget TOOL when tool search learned
// nothing about TOOL. Near is the learned tool it looks like a typo of.
type UnknownToolError struct{ Tool, Near string }

func (e *UnknownToolError) Error() string {
	if e.Near != "" {
		return fmt.Sprintf("unknown tool %q: tool search learned nothing about it; did you mean %s?", e.Tool, e.Near)
	}
	return fmt.Sprintf(`unknown tool %q: tool search learned nothing about it (agent tools --json lists what it learned, under "usage")`, e.Tool)
}
