package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/themes"
)

// approvalView renders the approval question in place of the input.
func approvalView(st *themes.Styles, req ApprovalRequest, width int) string {
	inner := max(width-4, 10)
	t := req.Tool
	who := t.Server
	if who == "" {
		who = "provider"
	}
	lines := []string{
		ansi.Truncate(st.DialogTitle.Render("Allow this tool call? ")+st.CardTitle.Render(t.Name)+st.CardServer.Render(" · "+who), inner, "…"),
		st.CardArgs.Render(ansi.Truncate(orText(summarizeArgs(t.Input), "(no arguments)"), inner, "…")),
		ansi.Truncate(st.HelpKey.Render("y")+st.HelpDesc.Render(" allow once  ")+
			st.HelpKey.Render("n")+st.HelpDesc.Render(" deny  ")+
			st.HelpKey.Render("a")+st.HelpDesc.Render(" always allow "+t.Name), inner, "…"),
	}
	return st.Dialog.Width(width).Render(strings.Join(lines, "\n"))
}

// replyCmd answers an approval off the Update loop: Reply unblocks the
// backend's Approver, which is the backend's business.
func replyCmd(req ApprovalRequest, d Decision) tea.Cmd {
	return func() tea.Msg {
		if req.Reply != nil {
			req.Reply(d)
		}
		return nil
	}
}

// picker is the /sessions list.
type picker struct {
	items  []SessionInfo
	cursor int
}

type pickerKeys struct{ up, down, pick, close key.Binding }

var pickKeys = pickerKeys{
	up:    key.NewBinding(key.WithKeys("up", "k", "ctrl+p")),
	down:  key.NewBinding(key.WithKeys("down", "j", "ctrl+n")),
	pick:  key.NewBinding(key.WithKeys("enter")),
	close: key.NewBinding(key.WithKeys("esc", "q", "ctrl+c")),
}

// update moves the cursor; it returns the picked session, or closed=true.
func (p *picker) update(k tea.KeyPressMsg) (picked *SessionInfo, closed bool) {
	switch {
	case key.Matches(k, pickKeys.up):
		if p.cursor > 0 {
			p.cursor--
		}
	case key.Matches(k, pickKeys.down):
		if p.cursor < len(p.items)-1 {
			p.cursor++
		}
	case key.Matches(k, pickKeys.pick):
		if len(p.items) == 0 {
			return nil, true
		}
		s := p.items[p.cursor]
		return &s, true
	case key.Matches(k, pickKeys.close):
		return nil, true
	}
	return nil, false
}

func (p *picker) View(st *themes.Styles, width, height int) string {
	ls := []string{st.DialogTitle.Render("Resume a session") + st.Muted.Render("  ↑/↓ move · enter resume · esc close"), ""}
	if len(p.items) == 0 {
		ls = append(ls, st.Notice.Render("no stored sessions"))
	}
	// Keep the cursor on screen.
	room := max(height-len(ls), 1)
	start := 0
	if p.cursor >= room {
		start = p.cursor - room + 1
	}
	// The model column is as wide as its longest entry, so
	// "provider/model" is cut only when it must be: at most 30 cells, and
	// less on a narrow screen, where about 20 stay for the title.
	limit := min(max(width-62, 14), 30)
	mw := 5
	for _, s := range p.items {
		mw = max(mw, min(ansi.StringWidth(s.Model), limit))
	}
	for i := start; i < len(p.items) && i < start+room; i++ {
		s := p.items[i]
		when := ""
		if !s.Updated.IsZero() {
			when = s.Updated.Format("2006-01-02 15:04")
		}
		model := ansi.Truncate(s.Model, mw, "…")
		model += strings.Repeat(" ", mw-ansi.StringWidth(model))
		row := fmt.Sprintf("%-8s  %-16s  %3d msgs  %s  %s", shortID(s.ID), when, s.Messages, model, s.Title)
		row = ansi.Truncate(row, width-2, "…")
		if i == p.cursor {
			row = st.Selected.Render("› " + row)
		} else {
			row = "  " + st.Text.Render(row)
		}
		ls = append(ls, row)
	}
	return strings.Join(fit(ls, width, height), "\n")
}
