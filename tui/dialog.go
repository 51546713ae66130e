package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/themes"
	"github.com/agent-dev/agent/tools/permission"
)

// approvalView renders the approval question in place of the input; with
// picking set, the choices of "always" instead.
func approvalView(st *themes.Styles, req ApprovalRequest, width int, picking, guarded bool) string {
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
	key := func(k, desc string) string { return st.HelpKey.Render(k) + st.HelpDesc.Render(" "+desc+"  ") }
	if picking {
		lines := []string{
			ansi.Truncate(st.DialogTitle.Render("Always allow ")+st.CardTitle.Render(t.Name)+st.CardServer.Render(" · "+who), inner, "…"),
			ansi.Truncate(st.HelpDesc.Render("this tool: ")+key("1", "this session")+key("2", "this project")+key("3", "always"), inner, "…"),
		}
		if t.Server != "" {
			lines = append(lines, ansi.Truncate(st.HelpDesc.Render("server "+t.Server+": ")+key("4", "this session")+key("5", "this project")+key("6", "always")+key("esc", "back"), inner, "…"))
		} else {
			lines = append(lines, ansi.Truncate(key("esc", "back"), inner, "…"))
		}
		return st.Dialog.Width(width).Render(strings.Join(lines, "\n"))
	}
	title := st.DialogTitle.Render("Allow this tool call? ") + st.CardTitle.Render(t.Name) + st.CardServer.Render(" · "+who)
	if p := t.Permission; p != nil && p.Reason != "" {
		title += st.HelpDesc.Render(" — " + sanitize.Line(p.Reason))
	}
	keys := key("y", "allow once") + key("n", "deny")
	switch {
	case req.SessionOnly:
		keys += key("a", "always, this session")
	case offersAlways(req):
		keys += key("a", "always…")
	}
	if guarded {
		// Keys typed now were typed before the question could be read.
		keys = st.HelpDesc.Render("…")
	}
	lines := []string{
		ansi.Truncate(title, inner, "…"),
		st.CardArgs.Render(ansi.Truncate(orText(summarizeArgs(t.Input), "(no arguments)"), inner, "…")),
		ansi.Truncate(keys, inner, "…"),
	}
	return st.Dialog.Width(width).Render(strings.Join(lines, "\n"))
}

// offersAlways: an "always" answer helps only against an ask that an allow
// rule overrides (require_approval); an explicit ask rule or a hook would
// ask again, so the dialog does not offer it then.
func offersAlways(req ApprovalRequest) bool {
	p := req.Tool.Permission
	return p == nil || p.Source != permission.SourceRule && p.Source != permission.SourceHook
}

// alwaysChoice is the answer a key gives in the "always" choices.
func alwaysChoice(k string, server bool) (Decision, bool) {
	d, ok := map[string]Decision{"1": AllowAlways, "enter": AllowAlways, "2": AllowToolProject, "3": AllowToolUser,
		"4": AllowServer, "5": AllowServerProject, "6": AllowServerUser}[k]
	if s, _, _ := d.Always(); s && !server {
		return Deny, false
	}
	return d, ok
}

// replyCmd answers an approval off the Update loop: Reply unblocks the
// waiting call and may save an "always" answer, which is the backend's
// business.
func replyCmd(req ApprovalRequest, d Decision) tea.Cmd {
	return func() tea.Msg {
		if req.Reply != nil {
			req.Reply(d)
		}
		return nil
	}
}
