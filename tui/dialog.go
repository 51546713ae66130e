package tui

import (
	"strings"

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
	if t.Agent != "" {
		// A subagent asks through its parent: say which one.
		who += " · subagent " + t.Agent
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
