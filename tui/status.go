package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/themes"
)

// statusBar is the one-line summary at the bottom.
type statusBar struct {
	info   Info
	last   agent.Usage
	totals agent.Usage
	// note overrides Info.Note for a while (e.g. "resumed · replaying N messages").
	note string
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func (s *statusBar) View(st *themes.Styles, width int) string {
	i := s.info
	model := i.Provider
	if i.Model != "" {
		if model != "" {
			model += "/"
		}
		model += i.Model
	}
	// Items carry a priority; the least important go first when the
	// terminal is too narrow for all of them.
	type item struct {
		text string
		prio int
	}
	items := []item{{st.BarAccent.Render(" " + orText(model, "no model")), 0}}
	add := func(s string, prio int) { items = append(items, item{st.BarItem.Render(s), prio}) }
	if i.SessionID != "" {
		add("sess "+shortID(i.SessionID), 1)
	}
	if i.SearchMode != "" {
		add("search "+i.SearchMode, 2)
	}
	add(fmt.Sprintf("last %s↑ %s↓", fmtTokens(s.last.InputTokens+s.last.CacheReadTokens+s.last.CacheWriteTokens), fmtTokens(s.last.OutputTokens)), 3)
	t := s.totals
	in := t.InputTokens + t.CacheReadTokens + t.CacheWriteTokens
	add(fmt.Sprintf("Σ %s↑ %s↓", fmtTokens(in), fmtTokens(t.OutputTokens)), 4)
	if in > 0 {
		add(fmt.Sprintf("cache %d%%", t.CacheReadTokens*100/in), 5)
	}
	if i.TokensSaved > 0 {
		add("saved ~"+fmtTokens(i.TokensSaved)+" tok", 3)
	}
	srv := 0
	for _, n := range t.ServerToolUses {
		srv += n
	}
	if srv > 0 {
		add(fmt.Sprintf("server tools %d", srv), 5)
	}
	note := i.Note
	if s.note != "" && note != "" {
		note = s.note + " · " + note
	} else if s.note != "" {
		note = s.note
	}
	right := ""
	if note != "" {
		right = st.BarNote.Render(" " + note + " ")
	}
	sep := st.BarItem.Render(" · ")
	join := func() string {
		parts := make([]string, len(items))
		for k, it := range items {
			parts[k] = it.text
		}
		return strings.Join(parts, sep)
	}
	left := join()
	for ansi.StringWidth(left)+ansi.StringWidth(right)+1 > width && len(items) > 1 {
		drop := 1
		for k := range items {
			if items[k].prio > items[drop].prio {
				drop = k
			}
		}
		items = append(items[:drop], items[drop+1:]...)
		left = join()
	}
	space := width - ansi.StringWidth(left) - ansi.StringWidth(right)
	line := left + st.Bar.Render(strings.Repeat(" ", max(space, 0))) + right
	return ansi.Truncate(line, width, "")
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
