package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/themes"
)

// searchEntry is one tool search as the pane (and the chat's one-line
// summary) show it.
type searchEntry struct {
	ID      string
	Where   string
	Query   string
	Running bool
	Err     string
	Found   []ToolInfo
	// Calls are the found tools the model then called, by tool name.
	Calls map[string]*callInfo
	// Manual marks a /search run by the user.
	Manual bool
	// Agent names the subagent whose search this is ("" for the session's).
	Agent string
	// line is the chat item that mirrors this search, re-rendered on change.
	line *chatItem
}

type callInfo struct {
	Status   cardStatus
	Duration time.Duration
	Count    int
}

func (s *searchEntry) touch() {
	if s.line != nil {
		s.line.version++
	}
}

func (s *searchEntry) where() string {
	w := s.Where
	if w == "" {
		w = agent.WhereClient
	}
	if s.Manual {
		return "/search"
	}
	if s.Agent != "" {
		return s.Agent + " · " + w
	}
	return w
}

func (s *searchEntry) label() string {
	if s.Manual {
		return "/search"
	}
	return s.where() + " search"
}

func (s *searchEntry) chatLine(st *themes.Styles, width int) []string {
	head := st.PaneWhere.Render("◇ "+s.label()) + " " + st.PaneQuery.Render(quote(s.Query))
	var tail string
	switch {
	case s.Running:
		tail = st.Running.Render(" … searching")
	case s.Err != "":
		tail = st.Fail.Render(" ✗ " + s.Err)
	default:
		names := make([]string, 0, len(s.Found))
		for _, t := range s.Found {
			names = append(names, t.Name)
		}
		tail = st.Muted.Render(" → " + plural(len(s.Found), "tool"))
		if len(names) > 0 {
			tail += st.PaneTool.Render(": " + strings.Join(names, ", "))
		}
	}
	return []string{ansi.Truncate(head+tail, width, "…")}
}

// quote shows a search's query. A search that loads tools (or OpenAI
// namespaces) by name reads "select a, b", not as the raw
// select:["a","b"] of the wire.
func quote(q string) string {
	if q == "" {
		return "(no query)"
	}
	if rest, ok := strings.CutPrefix(q, "select:"); ok {
		var names []string
		if json.Unmarshal([]byte(rest), &names) != nil {
			names = strings.Split(rest, ",")
		}
		for i, n := range names {
			names[i] = strings.TrimSpace(n)
		}
		return "select " + strings.Join(names, ", ")
	}
	return "“" + q + "”"
}

// pane is the live "discovered tools" pane.
type pane struct {
	st       *themes.Styles
	searches []*searchEntry
	byID     map[string]*searchEntry
	// manual holds the running /search entries by their own id, so two
	// searches for the same text each get their own result.
	manual    map[string]*searchEntry
	manualSeq int
	width     int
	height    int
	active    int
	deferred  int
	// seen counts discovered tools incrementally: the pane is drawn every
	// frame and a long session has thousands of searches.
	seen map[string]bool
	// version is bumped by every change; View caches its output on it.
	version   int
	cacheKey  string
	cacheView string
}

func newPane(st *themes.Styles) *pane {
	return &pane{st: st, byID: map[string]*searchEntry{}, manual: map[string]*searchEntry{}, seen: map[string]bool{}}
}

func (p *pane) SetSize(w, h int) { p.width, p.height = max(w, 1), max(h, 0) }

// SetStyles switches the theme.
func (p *pane) SetStyles(st *themes.Styles) { p.st, p.version = st, p.version+1 }

// SetCounts sets the active and deferred tool counts of the header.
func (p *pane) SetCounts(active, deferred int) { p.active, p.deferred = active, deferred }

// manualDone fills in the result of the /search with this id.
func (p *pane) manualDone(id string, found []ToolInfo, err error) {
	s := p.manual[id]
	if s == nil {
		return
	}
	delete(p.manual, id)
	p.version++
	s.Running = false
	s.Found = found
	if err != nil {
		s.Err = err.Error()
	}
	s.touch()
}

func (p *pane) reset() {
	p.version++
	p.searches = nil
	p.byID = map[string]*searchEntry{}
	p.manual = map[string]*searchEntry{}
	p.seen = map[string]bool{}
}

// manualSearch records a /search the user started.
func (p *pane) manualSearch(query string) *searchEntry {
	p.version++
	p.manualSeq++
	s := &searchEntry{ID: fmt.Sprintf("manual-%d", p.manualSeq), Where: agent.WhereClient, Query: query, Running: true, Manual: true, Calls: map[string]*callInfo{}}
	p.searches = append(p.searches, s)
	p.manual[s.ID] = s
	return s
}

// newTurn starts a new scope for search ids (see chat.newTurn).
func (p *pane) newTurn() { p.byID = map[string]*searchEntry{} }

// started records a search that began; it returns the entry so the chat can
// mirror it.
func (p *pane) started(ev agent.SearchEvent) (*searchEntry, bool) {
	p.version++
	if s, ok := p.byID[ev.ID]; ok && ev.ID != "" {
		s.Running = true
		if ev.Query != "" {
			s.Query = ev.Query
		}
		s.touch()
		return s, false
	}
	s := &searchEntry{ID: ev.ID, Where: ev.Where, Query: ev.Query, Running: true, Calls: map[string]*callInfo{}}
	p.searches = append(p.searches, s)
	if ev.ID != "" {
		p.byID[ev.ID] = s
	}
	return s, true
}

// finished fills in what a search found. A provider search can report its
// result without a start event; then the entry is created here.
func (p *pane) finished(ev agent.SearchEvent, found []ToolInfo) (*searchEntry, bool) {
	s, created := p.started(ev)
	s.Running = false
	s.Err = ev.Error
	if found == nil {
		for _, n := range ev.Tools {
			found = append(found, ToolInfo{Name: n})
		}
	}
	s.Found = found
	for _, t := range found {
		p.seen[t.Name] = true
	}
	s.touch()
	return s, created
}

// called links a tool call to the latest search of the same session (the
// agent's, or a subagent's by its name) that found the tool.
func (p *pane) called(agentName, name string, status cardStatus, d time.Duration) {
	p.version++
	for i := len(p.searches) - 1; i >= 0; i-- {
		s := p.searches[i]
		if s.Agent != agentName {
			continue
		}
		for _, t := range s.Found {
			if t.Name != name {
				continue
			}
			c := s.Calls[name]
			if c == nil {
				c = &callInfo{}
				s.Calls[name] = c
			}
			if status == statusRunning {
				c.Count++
			}
			c.Status, c.Duration = status, d
			return
		}
	}
}

func (p *pane) running() bool {
	for _, s := range p.searches {
		if s.Running {
			return true
		}
	}
	return false
}

// discovered counts the distinct tools the model's searches found (a
// manual /search is not the model's and does not count).
func (p *pane) discovered() int { return len(p.seen) }

// View renders newest search first, so the live one is always visible.
// A compact pane (folded below the chat) puts the header on one line.
func (p *pane) View(spin string, compact bool) string {
	key := fmt.Sprintf("%d/%d/%d/%d/%d/%v/%s/%p", p.version, p.width, p.height, p.active, p.deferred, compact, spin, p.st)
	if key == p.cacheKey {
		return p.cacheView
	}
	p.cacheKey, p.cacheView = key, p.render(spin, compact)
	return p.cacheView
}

func (p *pane) render(spin string, compact bool) string {
	w := max(p.width-2, 8)
	return p.st.Pane.Render(strings.Join(fit(p.lines(spin, compact, p.height), w, p.height), "\n"))
}

// needed is how many lines the pane's content takes, up to limit.
func (p *pane) needed(compact bool, limit int) int {
	return min(len(p.lines("", compact, limit)), limit)
}

// lines renders the content, newest search first, stopping at limit lines.
func (p *pane) lines(spin string, compact bool, limit int) []string {
	st := p.st
	w := p.width - 2 // left border and padding
	if w < 8 {
		w = 8
	}
	counts := []string{fmt.Sprintf("active %d", p.active), fmt.Sprintf("deferred %d", p.deferred), fmt.Sprintf("discovered %d", p.discovered())}
	var ls []string
	if compact {
		ls = []string{st.PaneHeader.Render("Discovered tools") + st.Muted.Render(" · "+strings.Join(counts, " · "))}
	} else {
		// The counts wrap rather than lose the discovered figure, the one
		// that changes, to the truncation below.
		ls = []string{st.PaneHeader.Render("Discovered tools")}
		for _, l := range joinWrapped(counts, " · ", w) {
			ls = append(ls, st.Muted.Render(l))
		}
		ls = append(ls, st.Subtle.Render(strings.Repeat("─", w)))
	}
	if len(p.searches) == 0 {
		ls = append(ls, st.Notice.Render("no searches yet"))
	}
	// Newest first, and only as many as fill the pane.
	for i := len(p.searches) - 1; i >= 0 && len(ls) < limit; i-- {
		s := p.searches[i]
		mark := "●"
		if s.Running {
			mark = spin
		}
		ls = append(ls, st.PaneWhere.Render(mark+" "+s.where())+" "+st.PaneQuery.Render(quote(s.Query)))
		switch {
		case s.Running:
			ls = append(ls, st.Running.Render("  searching…"))
		case s.Err != "":
			ls = append(ls, st.Fail.Render("  ✗ "+s.Err))
		case len(s.Found) == 0:
			ls = append(ls, st.Notice.Render("  nothing found"))
		}
		for _, t := range s.Found {
			ls = append(ls, "  "+st.PaneTool.Render(sanitize.Line(t.Name))+st.PaneServer.Render(" "+sanitize.Line(t.Server)))
			if d := firstLine(t.Description); d != "" {
				ls = append(ls, st.PaneDesc.Render("    "+d))
			}
			if c := s.Calls[t.Name]; c != nil {
				ls = append(ls, "    "+callLabel(st, c))
			}
		}
		ls = append(ls, "")
	}
	for i, l := range ls {
		ls[i] = ansi.Truncate(l, w, "…")
	}
	return ls
}

func callLabel(st *themes.Styles, c *callInfo) string {
	n := ""
	if c.Count > 1 {
		n = fmt.Sprintf(" ×%d", c.Count)
	}
	switch c.Status {
	case statusDenied:
		return st.Fail.Render("↳ denied" + n)
	case statusCancelled:
		return st.Fail.Render("↳ cancelled" + n)
	case statusOK:
		return st.OK.Render("↳ called" + n + " ✓ " + fmtDuration(c.Duration))
	case statusFailed:
		return st.Fail.Render("↳ called" + n + " ✗ " + fmtDuration(c.Duration))
	}
	return st.Running.Render("↳ calling" + n + "…")
}

// joinWrapped joins parts with sep into lines of at most width cells,
// breaking only between parts.
func joinWrapped(parts []string, sep string, width int) []string {
	var out []string
	cur := ""
	for _, p := range parts {
		switch {
		case cur == "":
			cur = p
		case ansi.StringWidth(cur+sep+p) <= width:
			cur += sep + p
		default:
			out = append(out, cur)
			cur = p
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}
