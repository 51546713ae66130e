package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/pricing"
	"github.com/agent-dev/agent/themes"
)

// statusBar is the one-line summary at the bottom.
type statusBar struct {
	info Info
	last agent.Usage
	// since is the usage that arrived after info was read: the figures
	// move during a turn, before the backend is asked again.
	since    agent.Usage
	requests int
	// note overrides Info.Note for a while (e.g. "resumed · replaying N messages").
	note string
}

// SetNote shows a note at the right of the bar ("" clears it).
func (s *statusBar) SetNote(n string) { s.note = n }

// resetUsage forgets the per-request figures (another session).
func (s *statusBar) resetUsage() {
	s.last, s.since, s.requests = agent.Usage{}, agent.Usage{}, 0
}

// setInfo takes fresh backend data; what arrived since is now included.
func (s *statusBar) setInfo(i Info) {
	s.info, s.since, s.requests = i, agent.Usage{}, 0
	if i.Requests > 0 {
		s.last = i.Last
	}
}

// usage records one request's usage as it arrives.
func (s *statusBar) usage(u agent.Usage) {
	s.last = u
	s.since.Add(u)
	s.requests++
}

func (s *statusBar) totals() agent.Usage {
	t := s.info.Totals
	t.ServerToolUses = nil
	for k, v := range s.info.Totals.ServerToolUses {
		if t.ServerToolUses == nil {
			t.ServerToolUses = map[string]int{}
		}
		t.ServerToolUses[k] = v
	}
	t.Add(s.since)
	return t
}

func inputOf(u agent.Usage) int { return u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens }

// contextFill is the share of the window the newest request filled, in
// percent; ok is false when the window or the request is unknown.
func (s *statusBar) contextFill() (pct int, ok bool) {
	w := s.info.ContextWindow
	in := inputOf(s.last) + s.last.OutputTokens
	if w <= 0 || in == 0 {
		return 0, w > 0
	}
	return min(in*100/w, 999), true
}

// cost is the session's cost so far; ok is false when a price is missing.
func (s *statusBar) cost() (float64, bool) {
	c := s.info.Cost
	if s.requests > 0 {
		if !s.info.Priced {
			return c, false
		}
		c += s.info.Price.Cost(pricing.Usage{Input: s.since.InputTokens, Output: s.since.OutputTokens,
			CacheRead: s.since.CacheReadTokens, CacheWrite: s.since.CacheWriteTokens})
	}
	return c, s.info.CostKnown
}

func fmtCost(c float64, ok bool) string {
	switch {
	case !ok:
		return "$?"
	case c == 0:
		return "$0"
	case c < 0.01:
		return "<$0.01"
	case c < 100:
		return fmt.Sprintf("$%.2f", c)
	}
	return fmt.Sprintf("$%.0f", c)
}

// searchItem is the bar's search mode. An asked mode that resolves to off
// ("native→off") does so because no tool is deferred (agent.ResolveSearch):
// said as that reason, in no more cells, since "native→off" read as if
// search were broken.
func searchItem(i Info) string {
	if asked, ok := strings.CutSuffix(i.SearchMode, "→off"); ok && asked != "off" && i.Deferred == 0 {
		return "nothing deferred"
	}
	return "search " + i.SearchMode
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// View lays the items out by priority: the model, the context fill and the
// cost stay, and the rest go least important first, never cut mid-word,
// before the model name is cut. On a terminal too narrow for the model
// beside those figures the model wins (see below).
func (s *statusBar) View(st *themes.Styles, width int) string {
	i := s.info
	model := i.Provider
	if i.Model != "" {
		if model != "" {
			model += "/"
		}
		model += i.Model
	}
	type item struct {
		text string
		prio int
		// narrow orders the must-keep items (prio 0) that still go on a
		// terminal too narrow for them beside the model: the highest first;
		// 0 never goes.
		narrow int
	}
	var items []item
	add := func(s string, prio int) { items = append(items, item{s, prio, 0}) }
	if i.Mode != "" && i.Mode != "default" {
		// The permission mode changes what runs unasked: it always shows.
		add("mode "+i.Mode, 0)
	}
	if pct, ok := s.contextFill(); ok {
		add(fmt.Sprintf("ctx %d%%", pct), 0)
	} else {
		add("ctx ?", 0)
	}
	items[len(items)-1].narrow = 1
	add(fmtCost(s.cost()), 0)
	items[len(items)-1].narrow = 2
	t := s.totals()
	in := inputOf(t)
	add(fmt.Sprintf("Σ %s↑ %s↓", fmtTokens(in), fmtTokens(t.OutputTokens)), 1)
	if in > 0 {
		add(fmt.Sprintf("cache %d%%", t.CacheReadTokens*100/in), 2)
	}
	if i.SessionID != "" {
		add("sess "+shortID(i.SessionID), 5)
	}
	// What deferral saved so far: the estimate per request times the
	// requests made, so it appears with the first request and grows.
	if n := i.Requests + s.requests; i.TokensSaved > 0 && n > 0 {
		add("saved ~"+fmtTokens(i.TokensSaved*n)+" tok", 4)
	}
	if i.SearchMode != "" {
		add(searchItem(i), 3)
	}
	add(fmt.Sprintf("last %s↑ %s↓", fmtTokens(inputOf(s.last)), fmtTokens(s.last.OutputTokens)), 6)
	srv := 0
	for _, n := range t.ServerToolUses {
		srv += n
	}
	if srv > 0 {
		add(fmt.Sprintf("server tools %d", srv), 4)
	}
	note := i.Note
	if s.note != "" && note != "" {
		note = s.note + " · " + note
	} else if s.note != "" {
		note = s.note
	}
	const sep = " · "
	join := func() string {
		parts := make([]string, len(items))
		for k, it := range items {
			parts[k] = it.text
		}
		return strings.Join(parts, sep)
	}
	// The model and the context fill are what a glance at the bar is for:
	// every other item goes before the model name is cut. Only when the
	// must-keep items alone do not fit is the model cut with an ellipsis.
	width = max(width, 1)
	// The session totals and cache share (priorities 1 and 2) go only when
	// the model would keep fewer than 40 cells: a deployment name can be
	// longer than any bar.
	modelW := ansi.StringWidth(model)
	for len(items) > 2 {
		drop := 0
		for k := range items {
			if items[k].prio >= items[drop].prio {
				drop = k
			}
		}
		need := modelW
		if items[drop].prio < 3 {
			need = min(modelW, 40)
		}
		if items[drop].prio == 0 || ansi.StringWidth(join())+need+4 <= width {
			break
		}
		items = append(items[:drop], items[drop+1:]...)
	}
	// Too narrow for the model beside the figures: the model is what tells
	// a user which one answers, so it keeps at least 12 cells (or all of a
	// shorter name). Its provider prefix goes first, then the cost, then
	// the context fill; a permission mode other than the default stays.
	// Only then is the model cut with an ellipsis.
	roomFor := func() int {
		if len(items) == 0 {
			return width - 2
		}
		return width - ansi.StringWidth(join()) - 4
	}
	if roomFor() < modelW && i.Model != "" && i.Model != model {
		model = i.Model
		modelW = ansi.StringWidth(model)
	}
	for roomFor() < min(modelW, 12) {
		drop := -1
		for k := range items {
			if items[k].narrow > 0 && (drop < 0 || items[k].narrow > items[drop].narrow) {
				drop = k
			}
		}
		if drop < 0 {
			break
		}
		items = append(items[:drop], items[drop+1:]...)
	}
	right := join()
	model = ansi.Truncate(model, max(roomFor(), 0), "…")
	left := st.BarAccent.Render(" " + orText(model, ""))
	if model == "" {
		left = st.Bar.Render(" ")
	}
	line := left + st.BarItem.Render(" "+sep[1:]+right)
	switch {
	case right == "":
		line = left + st.BarAccent.Render(" ")
	case model == "":
		line = left + st.BarItem.Render(right)
	}
	// The note takes the space that is left: its last parts go first
	// ("resumed · replaying 4 messages" becomes "resumed"), a part is never
	// cut ("resum…" said nothing); a note of one part is cut with an
	// ellipsis.
	if space := width - ansi.StringWidth(line) - 1; note != "" && space >= 8 {
		if parts := strings.Split(note, sep); len(parts) > 1 {
			for len(parts) > 0 && ansi.StringWidth(" "+strings.Join(parts, sep)+" ") > space {
				parts = parts[:len(parts)-1]
			}
			note = strings.Join(parts, sep)
		}
	}
	if space := width - ansi.StringWidth(line) - 1; note != "" && space >= 8 {
		n := ansi.Truncate(" "+note+" ", space, "… ")
		pad := width - ansi.StringWidth(line) - ansi.StringWidth(n)
		line += st.Bar.Render(strings.Repeat(" ", max(pad, 0))) + st.BarNote.Render(n)
	}
	space := width - ansi.StringWidth(line)
	line += st.Bar.Render(strings.Repeat(" ", max(space, 0)))
	return ansi.Truncate(line, width, "…")
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// modeMsg reports the permission mode shift+tab moved to.
type modeMsg struct{ mode string }

// modeNotice says what a permission mode does, when the user moves to it.
func modeNotice(mode string) string {
	switch mode {
	case "accept-reads":
		return "permission mode: accept-reads — read-only tools run without asking (shift+tab: next mode)"
	case "plan":
		return "permission mode: plan — only read-only tools run; the others are refused, and the model is told so (shift+tab: next mode)"
	case "bypass":
		return "permission mode: bypass — nothing is asked; deny rules still hold (shift+tab: next mode)"
	}
	return "permission mode: default — calls that need approval ask (shift+tab: next mode)"
}
