package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/themes"
)

// pickItem is one row of a picker.
type pickItem struct {
	ID     string
	Label  string
	Detail string
	// Preview is shown under the list for the row under the cursor.
	Preview []string
	// Filter is the text typing matches against.
	Filter string
}

type pickKind int

const (
	pickSession pickKind = iota
	pickModel
)

// pickAction is what a key did in the picker.
type pickAction int

const (
	pickNone pickAction = iota
	pickChosen
	pickClosed
	pickDelete
)

// PickerKeyMap is the picker's keys.
type PickerKeyMap struct {
	Up, Down, Pick, Close, Delete key.Binding
}

// DefaultPickerKeyMap returns the picker's default keys. Letters filter,
// so moving is on the arrows and ctrl+p/ctrl+n.
func DefaultPickerKeyMap() PickerKeyMap {
	return PickerKeyMap{
		Up:     key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "move")),
		Down:   key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "move")),
		Pick:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
		Close:  key.NewBinding(key.WithKeys("esc", "ctrl+c"), key.WithHelp("esc", "close")),
		Delete: key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "delete")),
	}
}

// picker is a filterable list: /sessions (with a preview and delete) and
// /model.
type picker struct {
	kind   pickKind
	title  string
	st     *themes.Styles
	keys   PickerKeyMap
	all    []pickItem
	shown  []pickItem
	filter string
	cursor int
	// armed is the id a first ctrl+d asked to delete; a second confirms.
	armed         string
	width, height int
}

func newPicker(st *themes.Styles, kind pickKind, title string, items []pickItem) *picker {
	p := &picker{kind: kind, title: title, st: st, keys: DefaultPickerKeyMap(), all: items}
	p.refilter()
	return p
}

func (p *picker) SetSize(w, h int) { p.width, p.height = w, h }

// remove drops a row (a deleted session).
func (p *picker) remove(id string) {
	var keep []pickItem
	for _, it := range p.all {
		if it.ID != id {
			keep = append(keep, it)
		}
	}
	p.all = keep
	p.refilter()
}

func (p *picker) refilter() {
	f := strings.Fields(strings.ToLower(p.filter))
	p.shown = p.shown[:0]
	for _, it := range p.all {
		hay := strings.ToLower(it.Label + " " + it.Detail + " " + it.Filter)
		ok := true
		for _, w := range f {
			if !strings.Contains(hay, w) {
				ok = false
				break
			}
		}
		if ok {
			p.shown = append(p.shown, it)
		}
	}
	p.cursor = min(p.cursor, max(len(p.shown)-1, 0))
}

// selected is the row under the cursor, if any.
func (p *picker) selected() *pickItem {
	if p.cursor < len(p.shown) {
		it := p.shown[p.cursor]
		return &it
	}
	return nil
}

// Update handles a key: moving, filtering, choosing, deleting.
func (p *picker) Update(msg tea.Msg) pickAction {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return pickNone
	}
	if !key.Matches(k, p.keys.Delete) {
		p.armed = ""
	}
	switch {
	case key.Matches(k, p.keys.Up):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(k, p.keys.Down):
		p.cursor = min(p.cursor+1, max(len(p.shown)-1, 0))
	case key.Matches(k, p.keys.Pick):
		if p.selected() == nil {
			return pickClosed
		}
		return pickChosen
	case key.Matches(k, p.keys.Close):
		return pickClosed
	case key.Matches(k, p.keys.Delete) && p.kind == pickSession:
		it := p.selected()
		if it == nil {
			return pickNone
		}
		if p.armed == it.ID {
			p.armed = ""
			return pickDelete
		}
		p.armed = it.ID
	case k.Code == tea.KeyBackspace:
		if r := []rune(p.filter); len(r) > 0 {
			p.filter = string(r[:len(r)-1])
			p.refilter()
		}
	case k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0:
		p.filter += k.Text
		p.cursor = 0
		p.refilter()
	}
	return pickNone
}

func (p *picker) help() string {
	h := "type to filter · ↑/↓ move · enter choose · esc close"
	if p.kind == pickSession {
		h = "type to filter · ↑/↓ move · enter resume · ctrl+d delete · esc close"
	}
	return h
}

// View renders the title, the filter, the rows and (sessions) the preview
// of the row under the cursor, in exactly height lines.
func (p *picker) View() string {
	st, width, height := p.st, p.width, p.height
	ls := []string{ansi.Truncate(st.DialogTitle.Render(p.title)+st.Muted.Render("  "+p.help()), width, "…")}
	ls = append(ls, st.Accent.Render("filter › ")+st.Text.Render(p.filter)+st.Muted.Render("▏"))
	var preview []string
	if it := p.selected(); it != nil && height >= 12 && len(it.Preview) > 0 {
		preview = append([]string{st.Subtle.Render(strings.Repeat("─", max(width-2, 1)))}, it.Preview...)
		preview = preview[:min(len(preview), max(height/3, 2))]
	}
	if p.armed != "" {
		preview = append([]string{st.WarningText.Render("ctrl+d again deletes session " + shortID(p.armed) + "; any other key keeps it")}, preview...)
	}
	if len(p.shown) == 0 {
		if len(p.all) == 0 {
			ls = append(ls, st.Notice.Render(map[pickKind]string{pickSession: "no stored sessions", pickModel: "no models known for this provider: /model NAME sets any"}[p.kind]))
		} else {
			ls = append(ls, st.Notice.Render("nothing matches “"+p.filter+"”"))
		}
	}
	room := max(height-len(ls)-len(preview), 1)
	start := 0
	if p.cursor >= room {
		start = p.cursor - room + 1
	}
	lw := 0
	for _, it := range p.shown {
		lw = max(lw, ansi.StringWidth(it.Label))
	}
	// The label (a session's id, date and message count; a model's name)
	// is what a row is chosen by: the detail after it gives way first. Cut
	// at half the width, a session's count read "…" at 60 columns.
	lw = min(lw, max(width-24, width/2, 12))
	for i := start; i < len(p.shown) && i < start+room; i++ {
		it := p.shown[i]
		label := ansi.Truncate(it.Label, lw, "…")
		row := label + strings.Repeat(" ", lw-ansi.StringWidth(label)) + "  " + it.Detail
		row = ansi.Truncate(row, max(width-2, 1), "…")
		if i == p.cursor {
			row = st.Selected.Render("› " + row)
		} else {
			row = "  " + st.Text.Render(row)
		}
		ls = append(ls, row)
	}
	for len(ls) < height-len(preview) {
		ls = append(ls, "")
	}
	ls = append(ls, preview...)
	return strings.Join(fit(ls, width, height), "\n")
}

// openPicker shows a picker in place of the chat.
func (m *Model) openPicker(p *picker) {
	m.picker = p
	m.sizePicker()
}

func (m *Model) sizePicker() {
	if m.picker == nil {
		return
	}
	l := m.layout()
	h := l.main
	if !m.opts.AltScreen {
		h = min(max(l.main, 3), 16)
	}
	m.picker.SetSize(m.width, h)
}

// pickerKey routes a key to the open picker and acts on its answer.
func (m *Model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	action := p.Update(k)
	it := p.selected()
	switch action {
	case pickClosed:
		m.picker = nil
	case pickChosen:
		m.picker = nil
		if p.kind == pickModel {
			return pickModelCmd(m.b, it.ID)
		}
		return resumeCmd(m.b, it.ID)
	case pickDelete:
		return deleteCmd(m.b, it.ID)
	}
	return nil
}

// sessionItems turns stored sessions into picker rows: the date and model
// in the row, the title (the first prompt) in the preview.
// onlySession is the one session whose ID starts with arg (an ID, or a
// prefix of one as agent sessions resolves it), else "".
func onlySession(ss []SessionInfo, arg string) string {
	arg = strings.TrimSpace(arg)
	if arg == "" || strings.ContainsAny(arg, " \t") {
		return ""
	}
	found := ""
	for _, s := range ss {
		if strings.HasPrefix(s.ID, arg) {
			if found != "" {
				return ""
			}
			found = s.ID
		}
	}
	return found
}

func sessionItems(ss []SessionInfo) []pickItem {
	out := make([]pickItem, 0, len(ss))
	for _, s := range ss {
		when := ""
		if !s.Updated.IsZero() {
			when = s.Updated.Format("2006-01-02 15:04")
		}
		title := strings.Join(strings.Fields(s.Title), " ")
		out = append(out, pickItem{
			ID:     s.ID,
			Label:  fmt.Sprintf("%-8s  %-16s  %3d msgs", shortID(s.ID), when, s.Messages),
			Detail: s.Model + "  " + orText(title, "(untitled)"),
			Filter: s.ID,
			Preview: append([]string{
				"session " + s.ID + " · " + s.Model + " · " + plural(s.Messages, "message"),
			}, wrapLines(orText(title, "(untitled)"), 100)...),
		})
	}
	return out
}
