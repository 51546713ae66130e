package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/store"
	"github.com/agent-dev/agent/tools/search"
)

// maxLearned is how many of the newest learned (query, tool) pairs a run
// loads into its search index.
const maxLearned = 100_000

// learning reports whether tool search learns from use: on unless
// --no-learn or "learn": false.
func learning(g *Globals) bool {
	return !g.NoLearn && (g.Config.Learn == nil || *g.Config.Learn)
}

// learnFromStore loads what earlier sessions taught into searcher and
// returns the session's Learner, which records this session's searches and
// calls in db and teaches searcher at once. Nil when learning is off.
func learnFromStore(ctx context.Context, g *Globals, db *store.DB, searcher *search.Searcher, session func() string) agent.Learner {
	if !learning(g) || db == nil {
		return nil
	}
	uses, err := db.LearnedUses(ctx, maxLearned)
	if err != nil {
		slog.Warn("tool search does not learn this run: cannot read earlier uses", "err", err)
		return nil
	}
	searcher.Learn(searchUses(uses)...)
	return &storeLearner{db: db, searcher: searcher, session: session}
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

// loadHistoryFile reads JSONL {"query", "tool": id or name} lines.
func loadHistoryFile(path string) ([]search.Use, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	defer f.Close()
	var out []search.Use
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var u search.Use
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil {
			return nil, fmt.Errorf("history %s line %d: %w", path, line, err)
		}
		if strings.TrimSpace(u.Query) == "" || strings.TrimSpace(u.Tool) == "" {
			return nil, fmt.Errorf(`history %s line %d: want {"query": ..., "tool": ...}`, path, line)
		}
		out = append(out, u)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read history %s: %w", path, err)
	}
	return out, nil
}

func newToolsForgetCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "forget",
		Short: "Forget what tool search learned from use: every recorded search and call",
		Long: `Tool search learns from use: each search a session runs, and each call of a tool a search
found, is kept in the session database and ranks that tool higher for a similar request
later. forget deletes all of it (the sessions themselves stay). --no-learn or "learn": false
in the config stop the recording.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := openDB(cmd.Context(), g)
			if err != nil {
				return err
			}
			defer db.Close()
			n, err := db.ForgetToolUses(cmd.Context())
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(g.Stdout, "forgot %d recorded searches and calls\n", n)
			return err
		},
	}
}

// toolUsage is one tool's line of the usage statistics in agent tools --json.
type toolUsage struct {
	Tool     string    `json:"tool"`
	Server   string    `json:"server,omitempty"`
	Found    int       `json:"found"`
	Called   int       `json:"called"`
	LastUsed time.Time `json:"last_used"`
}

// usageStats reads the usage statistics, or nothing when there is no
// database to read or learning is off.
func usageStats(ctx context.Context, g *Globals) []toolUsage {
	if !learning(g) {
		return nil
	}
	db, err := openDB(ctx, g)
	if err != nil {
		return nil
	}
	defer db.Close()
	stats, err := db.ToolStats(ctx)
	if err != nil {
		return nil
	}
	out := make([]toolUsage, len(stats))
	for i, s := range stats {
		out[i] = toolUsage{s.Tool, s.Server, s.Found, s.Called, s.LastUsed.UTC()}
	}
	return out
}
