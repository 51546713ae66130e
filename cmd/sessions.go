package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/store"
)

// newSessionsCmd is `agent sessions` with its show and rm subcommands.
func newSessionsCmd(g *Globals) *cobra.Command {
	var asJSON, all bool
	var limit int
	c := &cobra.Command{
		Use:   "sessions",
		Short: "List stored sessions, newest first",
		Long: `List stored sessions, newest first: ID, last update, title, provider/model, messages and
tool searches. Resume one with agent --resume ID (a unique ID prefix is enough).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit <= 0 {
				return usagef("--limit must be positive (use --all for every session)")
			}
			return withSessionDBRead(cmd.Context(), g, func(db *store.DB) error {
				// One more than asked tells whether the list was cut.
				list, err := db.List(cmd.Context(), store.ListOptions{Limit: limit + 1, All: all})
				if err != nil {
					return err
				}
				cut := !all && len(list) > limit
				if cut {
					list = list[:limit]
				}
				out := cmd.OutOrStdout()
				if asJSON {
					return sessionsJSON(out, list)
				}
				if len(list) == 0 {
					fmt.Fprintf(out, "No sessions yet in %s.\n", db.Path())
					return nil
				}
				writeSessionTable(out, list, time.Now())
				if cut {
					fmt.Fprintf(cmd.ErrOrStderr(), "Showing the %d most recent sessions; --all lists every one.\n", limit)
				}
				return nil
			})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	c.Flags().BoolVar(&all, "all", false, "list every session, not only the most recent")
	c.Flags().IntVar(&limit, "limit", 50, "how many sessions to list")
	c.AddCommand(newSessionsShowCmd(g), newSessionsRmCmd(g), newSessionsCompactCmd(g))
	return c
}

func newSessionsShowCmd(g *Globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "show ID",
		Short: "Print a session's transcript (--json exports the whole session)",
		Args:  sessionsExactArgs(1, "a session ID (see agent sessions)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSessionDBRead(cmd.Context(), g, func(db *store.DB) error {
				e, err := db.Export(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if asJSON {
					return sessionsJSON(cmd.OutOrStdout(), e)
				}
				writeSessionTranscript(cmd.OutOrStdout(), e)
				return nil
			})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "export the whole session as JSON: settings, messages with raw provider blocks, discoveries, usage")
	return c
}

func newSessionsRmCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:     "rm ID...",
		Aliases: []string{"delete"},
		Short:   "Delete sessions",
		Args:    sessionsMinArgs(1, "a session ID (see agent sessions)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSessionDB(cmd.Context(), g, func(db *store.DB) error {
				for _, a := range args {
					id, err := db.Delete(cmd.Context(), a)
					if err != nil {
						return err
					}
					fmt.Fprintf(cmd.OutOrStdout(), "Deleted session %s.\n", id)
				}
				return nil
			})
		},
	}
}

func sessionsExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %s (got %d arguments)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

func sessionsMinArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usagef("%s takes %s", cmd.CommandPath(), what)
		}
		return nil
	}
}

func withSessionDB(ctx context.Context, g *Globals, fn func(*store.DB) error) error {
	return app.WithSessionDB(ctx, g.DBPath, false, fn)
}

// withSessionDBRead opens a database the user cannot write read-only.
func withSessionDBRead(ctx context.Context, g *Globals, fn func(*store.DB) error) error {
	return app.WithSessionDB(ctx, g.DBPath, true, fn)
}

func sessionsJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func writeSessionTable(w io.Writer, list []store.Summary, now time.Time) {
	sw := sanitize.NewWriter(w) // titles are prompts, pasted from anywhere
	defer sw.Flush()
	w = sw
	rows := [][]string{{"ID", "UPDATED", "TITLE", "PROVIDER/MODEL", "MESSAGES", "SEARCHES"}}
	for _, s := range list {
		title := s.Title
		if title == "" {
			title = "(untitled)"
		}
		rows = append(rows, []string{s.ID, sessionsAgo(now, s.Updated), ansi.Truncate(title, 48, "…"),
			ansi.Truncate(s.Provider+"/"+s.Model, 40, "…"), fmt.Sprint(s.Messages), fmt.Sprint(s.Searches)})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", widths[i]-ansi.StringWidth(c)+2))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// sessionsAgo is a short, human age; older than a week shows the date.
func sessionsAgo(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 7*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.Local().Format("2006-01-02")
}

// writeSessionTranscript prints a session for reading; raw provider blocks are
// left to --json.
func writeSessionTranscript(w io.Writer, e *store.Export) {
	sw := sanitize.NewWriter(w) // model output and tool results are untrusted
	defer sw.Flush()
	w = sw
	m := e.Session
	fmt.Fprintf(w, "Session %s · %s/%s · %s\n", m.ID, m.Provider, m.Model, m.Workdir)
	if m.Title != "" {
		fmt.Fprintf(w, "%s\n", m.Title)
	}
	var u agent.Usage
	for _, r := range e.Requests {
		u.Add(agent.Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CacheReadTokens: r.CacheRead, CacheWriteTokens: r.CacheWrite})
	}
	fmt.Fprintf(w, "Created %s, updated %s · %d messages · %d requests · tokens in %d (cache read %d, write %d), out %d\n",
		m.Created.Local().Format("2006-01-02 15:04"), m.Updated.Local().Format("2006-01-02 15:04"), len(e.Messages), len(e.Requests),
		u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens)
	if s := m.Settings; s.Search != "" || s.Defer != "" || len(s.MCPServers) > 0 {
		fmt.Fprintf(w, "Search %s", sessionsDash(string(s.Search)))
		if s.Defer != "" {
			fmt.Fprintf(w, " · defer %s", s.Defer)
		}
		if len(s.MCPServers) > 0 {
			fmt.Fprintf(w, " · MCP %s", strings.Join(s.MCPServers, ", "))
		}
		fmt.Fprintln(w)
	}
	if m.Settings.Agent != "" {
		fmt.Fprintf(w, "Agent profile %s\n", m.Settings.Agent)
	}
	if n := len(e.Compactions); n > 0 {
		c := e.Compactions[n-1]
		fmt.Fprintf(w, "Compactions: %d (requests send a summary of the first %d messages: about %d → %d tokens)\n", n, c.Boundary, c.Before, c.After)
	}
	if len(e.Discoveries) > 0 {
		var names []string
		seen := map[string]bool{}
		for _, d := range e.Discoveries {
			if !seen[d.Tool] {
				seen[d.Tool] = true
				names = append(names, d.Tool)
			}
		}
		fmt.Fprintf(w, "Discovered tools: %s\n", strings.Join(names, ", "))
	}
	compacted := func(i int) {
		for _, c := range e.Compactions {
			if c.Boundary == i {
				fmt.Fprintf(w, "\n── compacted (%d): the messages above are sent as this summary ──\n%s\n", c.Seq, c.Summary)
			}
		}
	}
	for i, sm := range e.Messages {
		compacted(i)
		fmt.Fprintf(w, "\n── %s ──\n", sm.Role)
		for _, p := range sm.Parts {
			writeSessionPart(w, p)
		}
		if sm.Partial {
			fmt.Fprintln(w, "  [still streaming, or cut off by a crash]")
		} else if sm.Interrupted {
			fmt.Fprintln(w, "  [interrupted]")
		}
	}
	compacted(len(e.Messages))
}

func writeSessionPart(w io.Writer, p agent.Part) {
	switch p.Type {
	case agent.PartText:
		fmt.Fprintln(w, p.Text)
	case agent.PartToolCall:
		fmt.Fprintf(w, "  → %s %s\n", p.ToolCall.Name, sessionsClip(string(p.ToolCall.Input), 200))
	case agent.PartToolResult:
		r := p.ToolResult
		mark := "←"
		if r.IsError {
			mark = "✗"
		}
		fmt.Fprintf(w, "  %s %s: %s\n", mark, r.Name, sessionsClip(r.Text, 300))
	case agent.PartSearchCall:
		fmt.Fprintf(w, "  ⌕ tool search (%s): %s\n", p.SearchCall.Where, p.SearchCall.Text())
	case agent.PartSearchResult:
		r := p.SearchResult
		if r.Error != "" {
			fmt.Fprintf(w, "  ⌕ search failed: %s\n", r.Error)
		} else {
			fmt.Fprintf(w, "  ⌕ found: %s\n", sessionsDash(strings.Join(r.Tools, ", ")))
		}
	case agent.PartServerTool:
		st := p.ServerTool
		fmt.Fprintf(w, "  ⚙ %s %s\n", st.Name, sessionsClip(string(st.Input), 200))
		for _, s := range st.Sources {
			fmt.Fprintf(w, "    %s\n", s.URL)
		}
	}
}

// sessionsClip makes s one line of at most n cells.
func sessionsClip(s string, n int) string {
	return ansi.Truncate(strings.Join(strings.Fields(s), " "), n, "…")
}

func sessionsDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
