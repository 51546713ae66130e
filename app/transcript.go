package app

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/internal/imagefile"
	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/store"
)

// WriteSessionTable prints agent sessions' list: ID, age, title,
// provider/model, messages and searches, in aligned columns. A subagent's
// session is marked ↳ and listed under its parent's row when that is in
// the list, else where it falls with the parent's id. Given a terminal's
// width (0: not a terminal, every field as it is), the titles are cut to
// fit it, then the provider/model: at 80 columns each row ran to about
// 100 and the terminal wrapped it into the next.
func WriteSessionTable(w io.Writer, list []store.Summary, now time.Time, width int) {
	cut := cutLines(w, width)
	defer cut.Flush()
	sw := sanitize.NewWriter(cut) // titles are prompts, pasted from anywhere
	defer sw.Flush()
	rows := [][]string{{"ID", "UPDATED", "TITLE", "PROVIDER/MODEL", "MESSAGES", "SEARCHES"}}
	listed, kids := map[string]bool{}, map[string][]store.Summary{}
	for _, s := range list {
		listed[s.ID] = true
	}
	for _, s := range list {
		if listed[s.ParentID] {
			kids[s.ParentID] = append(kids[s.ParentID], s)
		}
	}
	row := func(s store.Summary, title string) {
		rows = append(rows, []string{s.ID, sessionAge(now, s.Updated), ansi.Truncate(title, 48, "…"),
			ansi.Truncate(s.Provider+"/"+s.Model, 40, "…"), fmt.Sprint(s.Messages), fmt.Sprint(s.Searches)})
	}
	for _, s := range list {
		title := orText(s.Title, "(untitled)")
		switch {
		case listed[s.ParentID]:
			continue // under its parent
		case s.ParentID != "":
			title = "↳ subagent of " + s.ParentID + ": " + title
		}
		row(s, title)
		for _, k := range kids[s.ID] {
			row(k, "↳ "+orText(k.Title, "(untitled)"))
		}
	}
	// Columns are measured in cells, not bytes (titles are any language),
	// which text/tabwriter does not do.
	widths := columnWidths(rows)
	if width > 0 {
		// The title gives way first, then the provider/model, each down
		// to what still names it, then both to a few cells (60 columns);
		// a row still too wide is cut at the end.
		for _, step := range []struct{ col, least int }{{2, 12}, {3, 12}, {2, 6}, {3, 6}} {
			total := 0
			for _, cw := range widths {
				total += cw + 2
			}
			if over := total - 2 - width; over > 0 && widths[step.col] > step.least {
				cw := max(widths[step.col]-over, step.least)
				for _, r := range rows[1:] {
					r[step.col] = ansi.Truncate(r[step.col], cw, "…")
				}
				rows[0][step.col] = ansi.Truncate(rows[0][step.col], cw, "…")
				widths = columnWidths(rows)
			}
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
		fmt.Fprintln(sw, strings.TrimRight(b.String(), " "))
	}
}

// columnWidths is each column's width in cells.
func columnWidths(rows [][]string) []int {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	return widths
}

// sessionAge is a short, human age; older than a week shows the date.
func sessionAge(now, t time.Time) string {
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

// WriteTranscript prints a session for reading (agent sessions show); raw
// provider blocks are left to --json.
func WriteTranscript(w io.Writer, e *store.Export) {
	sw := sanitize.NewWriter(w) // model output and tool results are untrusted
	defer sw.Flush()
	w = sw
	m := e.Session
	fmt.Fprintf(w, "Session %s · %s/%s · %s\n", m.ID, m.Provider, m.Model, m.Workdir)
	if m.Title != "" {
		fmt.Fprintf(w, "%s\n", m.Title)
	}
	if m.ParentID != "" {
		fmt.Fprintf(w, "Subagent %s of session %s\n", dash(m.Settings.Agent), m.ParentID)
	}
	if len(e.Children) > 0 {
		fmt.Fprintf(w, "Subagent sessions: %s\n", strings.Join(e.Children, ", "))
	}
	// The totals are the session's and its subagents', as they were
	// counted while it ran.
	var u agent.Usage
	usd, priced := 0.0, true
	for _, r := range append(append([]store.Request(nil), e.Requests...), e.ChildRequests...) {
		u.Add(r.Usage())
		c, ok := cost(r.Provider, r.Model, r.Usage())
		usd, priced = usd+c, priced && ok
	}
	reqs := fmt.Sprintf("%d requests", len(e.Requests)+len(e.ChildRequests))
	if n := len(e.ChildRequests); n > 0 {
		reqs += fmt.Sprintf(" (%d by subagents)", n)
	}
	spent := fmt.Sprintf("cost $%.4f", usd)
	if !priced {
		spent = "cost unknown (a model without a price)"
	}
	fmt.Fprintf(w, "Created %s, updated %s · %d messages · %s · tokens in %d (cache read %d, write %d), out %d · %s\n",
		m.Created.Local().Format("2006-01-02 15:04"), m.Updated.Local().Format("2006-01-02 15:04"), len(e.Messages), reqs,
		u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens, spent)
	if s := m.Settings; s.Search != "" || s.Defer != "" || len(s.MCPServers) > 0 {
		fmt.Fprintf(w, "Search %s", dash(string(s.Search)))
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
			writePart(w, p)
		}
		if sm.Partial {
			fmt.Fprintln(w, "  [still streaming, or cut off by a crash]")
		} else if sm.Interrupted {
			fmt.Fprintln(w, "  [interrupted]")
		}
	}
	compacted(len(e.Messages))
}

func writePart(w io.Writer, p agent.Part) {
	switch p.Type {
	case agent.PartText:
		fmt.Fprintln(w, p.Text)
	case agent.PartImage:
		// Named with its type and size, never its bytes.
		fmt.Fprintf(w, "  ▣ %s\n", imagefile.Chip(*p.Image))
	case agent.PartToolCall:
		fmt.Fprintf(w, "  → %s %s\n", p.ToolCall.Name, clip(string(p.ToolCall.Input), 200))
	case agent.PartToolResult:
		r := p.ToolResult
		mark := "←"
		if r.IsError {
			mark = "✗"
		}
		fmt.Fprintf(w, "  %s %s: %s\n", mark, r.Name, clip(r.Text, 300))
	case agent.PartSearchCall:
		fmt.Fprintf(w, "  ⌕ tool search (%s): %s\n", p.SearchCall.Where, p.SearchCall.Text())
	case agent.PartSearchResult:
		r := p.SearchResult
		if r.Error != "" {
			fmt.Fprintf(w, "  ⌕ search failed: %s\n", r.Error)
		} else {
			fmt.Fprintf(w, "  ⌕ found: %s\n", dash(strings.Join(r.Tools, ", ")))
		}
	case agent.PartServerTool:
		st := p.ServerTool
		fmt.Fprintf(w, "  ⚙ %s %s\n", st.Name, clip(string(st.Input), 200))
		for _, s := range st.Sources {
			fmt.Fprintf(w, "    %s\n", s.URL)
		}
	}
}

// clip makes s one line of at most n cells.
func clip(s string, n int) string {
	return ansi.Truncate(strings.Join(strings.Fields(s), " "), n, "…")
}
