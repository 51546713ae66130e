package app

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/sanitize"
	mcptools "github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/search"
)

// What the subcommands print: each report as a table for a reader (every
// string from outside sanitised) or, through WriteJSON, as indented JSON.

// WriteJSON prints v as indented JSON, the form of every --json.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// firstLine is s up to its first line break: a multi-line error in a
// table cell would break the table.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// WriteToolsReport prints agent tools: the servers' totals, every tool
// with its set and cost, the tools left out and what a request carries.
// width is the terminal's (0 when not one: nothing is cut or wrapped).
func WriteToolsReport(w io.Writer, rep *ToolsReport, width int) error {
	sw := sanitize.NewWriter(w) // tool and server names, warnings come from outside
	defer sw.Flush()
	w = sw
	cut := cutLines(w, width)
	for _, warn := range rep.Warnings {
		fmt.Fprintln(w, wrapNote("warning: "+warn, width))
	}
	// The model is empty when the provider is not configured.
	provider := rep.Provider
	if rep.ProviderError != "" {
		provider += " (not configured: " + rep.ProviderError + ")"
	}
	fmt.Fprintln(w, wrapNote(fmt.Sprintf("%s, search %s (resolves to %s): %d active, %d deferred", strings.TrimSpace(provider+" "+rep.Model), rep.Search, rep.Resolved, rep.Active, rep.Deferred), width))
	fmt.Fprintln(w)
	if len(rep.Tools) == 0 {
		fmt.Fprintln(w, wrapNote("no tools: no MCP server is configured or started (agent mcp list shows the presets; connect one with --mcp NAME)", width))
		return nil
	}
	tw := tabwriter.NewWriter(cut, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTOOLS\tDEFERRED\tTOKENS")
	for _, s := range rep.Servers {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", dash(s.Server), s.Tools, s.Deferred, s.Tokens)
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	head := []string{"TOOL", "SERVER", "SET", "TOKENS"}
	rows := make([][]string, 0, len(rep.Tools))
	for _, t := range rep.Tools {
		rows = append(rows, []string{t.Name, dash(t.Server), setName(t.Deferred), strconv.Itoa(t.Tokens), briefHints(t.Annotations)})
	}
	hints := make([]string, len(rows))
	for i, r := range rows {
		hints[i] = r[4]
	}
	room := 0 // the ANNOTATIONS column's cells on a terminal; 0: all
	if width > 0 {
		room = width
		for i, h := range head {
			col := ansi.StringWidth(h)
			for _, r := range rows {
				col = max(col, ansi.StringWidth(r[i]))
			}
			room -= col + 2
		}
		// Too narrow for the hints' words beside the rows: every row takes
		// the short ones, so a column reads the same way throughout. On
		// lines of their own under the rows (under, below) they have the
		// width, and keep their words.
		if room >= minHintRoom && slices.ContainsFunc(hints, func(h string) bool { return ansi.StringWidth(h) > room }) {
			for i := range hints {
				hints[i] = shortHints(hints[i])
			}
		}
	}
	// The hints wrap at their commas under one another; with less than a
	// hint's room beside the row (long tool names), they go on a line of
	// their own under it, added once the table is laid out so that the
	// columns stay one block.
	var table bytes.Buffer
	tw = tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	under := width > 0 && room < minHintRoom // every row's hints under it
	if under {
		fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	} else {
		fmt.Fprintln(tw, strings.Join(head, "\t")+"\tANNOTATIONS")
	}
	below := map[int]string{} // by line of the table
	line := 1
	for i, r := range rows {
		lines := wrapHints(hints[i], room)
		if under && hints[i] != "" {
			lines, below[line] = []string{""}, "    "+hints[i]
		}
		for j, l := range lines {
			if j == 0 {
				fmt.Fprintln(tw, strings.Join(r[:4], "\t")+"\t"+l)
			} else {
				fmt.Fprintln(tw, "\t\t\t\t"+l)
			}
			line++
		}
	}
	_ = tw.Flush()
	for i, l := range strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n") {
		fmt.Fprintln(cut, l)
		if b, ok := below[i]; ok {
			fmt.Fprintln(cut, b)
		}
	}
	for _, l := range []struct {
		head []string
		rows []QuarantinedRow
	}{{[]string{"QUARANTINED", "SERVER", "PROBLEM (never sent)"}, rep.Quarantined}, {[]string{"HIDDEN", "SERVER", "REASON (never sent)"}, rep.Hidden}} {
		if len(l.rows) == 0 {
			continue
		}
		fmt.Fprintln(w)
		var rows [][]string
		for _, q := range l.rows {
			rows = append(rows, []string{q.Name, dash(q.Server), q.Problem})
		}
		_ = writeTable(w, width, l.head, rows)
	}
	e := rep.Sent
	fmt.Fprintln(w)
	fmt.Fprintln(w, wrapNote(fmt.Sprintf("in the model's context per request: about %d tokens of tool definitions (every tool eager: %d; saved by deferral: %d)",
		e.Context, e.Eager, e.Saved), width))
	return nil
}

// briefHints is a tool's annotations as agent tools' table shows them: a
// read-only tool's destructive and idempotent hints go, as the MCP
// specification says they are meaningful only when readOnlyHint is false
// (mcp-go sends destructiveHint true on every tool whose author did not
// set it: "read-only, destructive" read as a contradiction). --json keeps
// them as the server sent them.
func briefHints(hints string) string {
	parts := strings.Split(hints, ", ")
	if !slices.Contains(parts, "read-only") {
		return hints
	}
	parts = slices.DeleteFunc(parts, func(h string) bool {
		return h == "destructive" || h == "non-destructive" || h == "idempotent"
	})
	return strings.Join(parts, ", ")
}

// minHintRoom is the fewest cells beside a row that hints wrap in: the
// longest short hint ("destructive,") and the column's name.
const minHintRoom = len("ANNOTATIONS") + 1

// shortHints are hints in the short words agent tools uses on a terminal
// too narrow for the long ones: the specification's "additive" for
// non-destructive, and the world hints without "-world".
func shortHints(hints string) string {
	parts := strings.Split(hints, ", ")
	for i, h := range parts {
		switch h {
		case "non-destructive":
			parts[i] = "additive"
		case "open-world":
			parts[i] = "open"
		case "closed-world":
			parts[i] = "closed"
		}
	}
	return strings.Join(parts, ", ")
}

// wrapHints splits hints ("destructive, idempotent, closed-world") at
// their commas into lines of at most room cells; room 0 keeps one line.
func wrapHints(hints string, room int) []string {
	if room <= 0 || ansi.StringWidth(hints) <= room {
		return []string{hints}
	}
	var lines []string
	cur := ""
	for _, h := range strings.Split(hints, ", ") {
		switch {
		case cur == "":
			cur = h
		case ansi.StringWidth(cur+", "+h+",") <= room:
			cur += ", " + h
		default:
			lines = append(lines, cur+",")
			cur = h
		}
	}
	return append(lines, cur)
}

func setName(deferred bool) string {
	if deferred {
		return "deferred"
	}
	return "active"
}

// WriteMCPList prints agent mcp list; showTools adds each server's tools.
// width is the terminal's (0 when not one: nothing is cut or wrapped).
func WriteMCPList(w io.Writer, entries []MCPEntry, showTools bool, width int) error {
	sw := sanitize.NewWriter(w) // server names, errors and tool names come from outside
	defer sw.Flush()
	w = sw
	cut := cutLines(w, width)
	var rows [][]string
	for _, e := range entries {
		count, deferred := "-", "-"
		if e.State == mcptools.StateRunning || e.State == mcptools.StateDown || e.State == stateCached {
			count, deferred = strconv.Itoa(e.Tools), strconv.Itoa(e.Deferred)
		}
		detail := cmp.Or(e.Error, e.Target)
		rows = append(rows, []string{e.Name, e.Transport, string(e.State), dash(signInText(e.SignIn, e.Grant)), count, deferred, e.Source, firstLine(detail)})
	}
	if err := writeTable(w, width, []string{"NAME", "TRANSPORT", "STATUS", "SIGN-IN", "TOOLS", "DEFERRED", "SOURCE", "DETAIL"}, rows); err != nil {
		return err
	}
	// One store serves every server of a run: said once.
	for _, e := range entries {
		if e.keptIn != "" {
			fmt.Fprintln(w)
			fmt.Fprintln(w, wrapNote("Sign-ins are kept in "+e.keptIn+".", width))
			break
		}
	}
	if !showTools {
		return nil
	}
	for _, e := range entries {
		if len(e.ToolNames) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: %d %s, %d deferred\n", e.Name, e.Tools, plural(e.Tools, "tool", "tools"), e.Deferred)
		tw := tabwriter.NewWriter(cut, 0, 0, 2, ' ', 0)
		for _, t := range e.ToolNames {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Name, setName(t.Deferred), t.ServerTool)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// WriteHits prints agent tools search's ranking of query among n tools.
// width is the terminal's: the description is cut to fit it (0 when not
// one: the first 80 columns of the description, as ever).
func WriteHits(w io.Writer, hits []search.Hit, query string, n, width int) error {
	if len(hits) == 0 {
		_, err := fmt.Fprintf(w, "no tools match %q among %d %s\n", query, n, plural(n, "tool", "tools"))
		return err
	}
	rows := [][]string{{"#", "NAME", "SERVER", "SCORE", "DESCRIPTION"}}
	for i, h := range hits {
		// Catalogs and MCP descriptions are untrusted: no escape reaches the terminal.
		rows = append(rows, []string{strconv.Itoa(i + 1), sanitize.Line(h.Name), sanitize.Line(dash(h.Server)), fmt.Sprintf("%.2f", h.Score),
			ansi.Truncate(sanitize.Line(search.FirstLine(h.Description)), 80, "…")})
	}
	if width > 0 {
		if lines := hitLines(rows, 4); width-maxLineWidth(lines)-2 < minHitDescription {
			return writeHitsUnder(w, lines, rows, width)
		}
	}
	cut := cutLines(w, width)
	tw := tabwriter.NewWriter(cut, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// minHitDescription is the least room a hit's description gets beside
// its row on a terminal; with less it goes on a line of its own.
const minHitDescription = 24

// writeHitsUnder prints each hit's row without its description, and the
// description under it, indented, on a terminal too narrow for both: at
// 80 columns server-everything's long tool names left the description
// ten cells ("Trigger a …"), and the description is what a search result
// is read by. lines are the rows laid out without it.
func writeHitsUnder(w io.Writer, lines []string, rows [][]string, width int) error {
	const indent = "    "
	cut := cutLines(w, width)
	for i, l := range lines {
		if _, err := io.WriteString(cut, l+"\n"); err != nil {
			return err
		}
		if i == 0 || rows[i][4] == "" {
			continue
		}
		if _, err := io.WriteString(cut, indent+ansi.Truncate(rows[i][4], max(width-len(indent), 1), "…")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// hitLines lays out the first cols columns of rows as a table.
func hitLines(rows [][]string, cols int) []string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		_, _ = io.WriteString(tw, strings.Join(r[:cols], "\t")+"\n")
	}
	_ = tw.Flush()
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

func maxLineWidth(lines []string) int {
	n := 0
	for _, l := range lines {
		n = max(n, ansi.StringWidth(l))
	}
	return n
}

// WriteAgents prints agent agents: the profiles, their files shown
// relative to workdir when inside it; errors go to errw.
func WriteAgents(w, errw io.Writer, rep AgentsList, workdir string) error {
	for _, e := range rep.Errors {
		fmt.Fprintln(errw, "warning: "+sanitize.Line(e))
	}
	if len(rep.Agents) == 0 {
		_, err := fmt.Fprintln(w, "No agent profiles. Add one as .agent/agents/NAME.md: YAML front matter\n(description, model, mcp, defer, tools, ...), then the system prompt.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tMODEL\tMCP\tDESCRIPTION")
	for _, a := range rep.Agents {
		path := a.Path
		if rel, err := filepath.Rel(workdir, a.Path); err == nil && !strings.HasPrefix(rel, "..") {
			path = rel
		}
		model := strings.TrimPrefix(a.Provider+":"+a.Model, ":")
		if a.ModelID != "" {
			model += " (" + a.ModelID + ")" // sonnet (claude-sonnet-4-5)
		}
		name := sanitize.Line(a.Name)
		if a.Subagent {
			name += " (subagent)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, a.Source+" "+sanitize.Line(path),
			dash(sanitize.Line(model)), dash(sanitize.Line(strings.Join(a.MCP, ","))), sanitize.Line(a.Description))
	}
	return tw.Flush()
}

// CompactReport is what agent sessions compact prints.
type CompactReport struct {
	SessionID string           `json:"session_id"`
	Compacted agent.Compaction `json:"compaction"`
	// Messages is the whole history, which the store keeps.
	Messages int `json:"messages"`
}

// ReportCompaction is agent sessions compact's report of cp.
func (a *App) ReportCompaction(cp *agent.Compaction) CompactReport {
	return CompactReport{SessionID: a.session.ID(), Compacted: *cp, Messages: len(a.session.Messages())}
}

// WriteCompaction prints agent sessions compact's report.
func WriteCompaction(w io.Writer, rep CompactReport) {
	sw := sanitize.NewWriter(w) // the summary is model output
	defer sw.Flush()
	fmt.Fprintf(sw, "Compacted session %s (compaction %d): %s.\n", rep.SessionID, rep.Compacted.Seq, CompactionLine(rep.Compacted))
	fmt.Fprintf(sw, "The store keeps all %d messages (agent sessions show %s).\n\n%s\n", rep.Messages, rep.SessionID, rep.Compacted.Summary)
}

// ModelRow is what agent models prints of one model id.
type ModelRow struct {
	Model    string `json:"model"`
	Provider string `json:"provider"`
	models.Capabilities
	EffortMap     map[string]string `json:"effort_map,omitempty"`
	ProviderTools []string          `json:"provider_tools"`
}

// ModelRows looks ids up in the capability table of s (the config's
// models applied) under its provider; no ids means --model.
func ModelRows(s Settings, ids []string) ([]ModelRow, error) {
	if err := CheckProvider(s.Provider); err != nil {
		return nil, err
	}
	if len(ids) == 0 && s.Model != "" {
		ids = []string{s.Model}
	}
	if len(ids) == 0 {
		return nil, Usagef("name a model: agent models MODEL (or --model)")
	}
	table, err := s.ModelTable()
	if err != nil {
		return nil, Usagef("%v", err)
	}
	var rows []ModelRow
	for _, m := range ids {
		c := table.Lookup(s.Provider, m)
		rows = append(rows, ModelRow{m, s.Provider, c, c.EffortMap(), append([]string{}, HostedTools(s.Provider)...)})
	}
	return rows, nil
}

// WriteModels prints agent models' rows, one block a model.
func WriteModels(w io.Writer, rows []ModelRow) error {
	sw := sanitize.NewWriter(w)
	defer sw.Flush()
	for _, r := range rows {
		tw := tabwriter.NewWriter(sw, 0, 4, 2, ' ', 0)
		c := r.Capabilities
		known := "known"
		if !c.Known {
			known = "not in the table: conservative defaults (declare it in the config's \"models\")"
		}
		fmt.Fprintf(sw, "%s (%s): %s\n", r.Model, r.Provider, known)
		fmt.Fprintf(tw, "  context window\t%d\n  max output\t%d (default %d)\n", c.ContextWindow, c.MaxOutput, c.DefaultMaxTokens)
		fmt.Fprintf(tw, "  tool search\t%v (defer_loading %v)\n", c.NativeSearch, c.DeferLoading)
		fmt.Fprintf(tw, "  reasoning\t%s (thinking %s, encrypted %v)\n", c.Reasoning, c.Thinking, c.EncryptedReasoning)
		fmt.Fprintf(tw, "  efforts\t%s\n  schema dialect\t%s\n  takes images\t%v\n", dash(strings.Join(c.Efforts, ", ")), c.SchemaDialect, c.TakesImages)
		var maps []string
		for _, l := range models.EffortLevels {
			if w, ok := r.EffortMap[l]; ok {
				maps = append(maps, l+"→"+w)
			}
		}
		fmt.Fprintf(tw, "  --effort\t%s\n", dash(strings.Join(maps, ", ")))
		fmt.Fprintf(tw, "  provider tools\t%s\n  retired\t%s\n", cmp.Or(strings.Join(r.ProviderTools, ", "), "none"), cmp.Or(c.Retired, "no"))
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
