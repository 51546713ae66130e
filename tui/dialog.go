package tui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/themes"
	"github.com/agent-dev/agent/tools/permission"
)

// approvalView renders the approval question in place of the input; with
// picking set, the choices of "always" instead.
func approvalView(st *themes.Styles, req ApprovalRequest, width, maxRows int, picking, guarded bool) string {
	inner := max(width-4, 10)
	t := req.Tool
	who := approvalWho(t)
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
	if req.Question != "" {
		title = st.DialogTitle.Render(sanitize.Line(req.Question))
	}
	inline, reason := approvalReason(req, who, inner)
	title += st.HelpDesc.Render(inline)
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
	lines := []string{ansi.Truncate(title, inner, "…")}
	for _, r := range reason {
		lines = append(lines, st.HelpDesc.Render(r))
	}
	for _, a := range approvalArgs(t.Input, inner, maxRows) {
		lines = append(lines, st.CardArgs.Render(a))
	}
	lines = append(lines, ansi.Truncate(keys, inner, "…"))
	return st.Dialog.Width(width).Render(strings.Join(lines, "\n"))
}

// approvalWho names who offers the tool in the question.
func approvalWho(t agent.ToolEvent) string {
	who := t.Server
	if who == "" {
		who = "provider"
	}
	if t.Agent != "" {
		// A subagent asks through its parent: say which one.
		who += " · subagent " + t.Agent
	}
	return who
}

// approvalReasonLines bounds the rows of why the call is asked.
const approvalReasonLines = 2

// approvalReason is why the call is asked, laid out for the question:
// inline, to end the title line with, when it fits there, else lines of
// their own under it. Cut at the end of the title line, the rule or hook
// that asked was lost at 80 columns ("the permissions rule "mem__re…").
func approvalReason(req ApprovalRequest, who string, inner int) (inline string, lines []string) {
	p := req.Tool.Permission
	if p == nil || p.Reason == "" {
		return "", nil
	}
	r := sanitize.Line(p.Reason)
	head := ansi.StringWidth("Allow this tool call? " + req.Tool.Name + " · " + who)
	if req.Question != "" {
		head = ansi.StringWidth(sanitize.Line(req.Question))
	}
	if head+ansi.StringWidth(" — "+r) <= inner {
		return " — " + r, nil
	}
	const indent = "  "
	w := max(inner-len(indent), 1)
	lines = capLines(strings.Split(ansi.Wrap(r, w, ""), "\n"), approvalReasonLines, w)
	for i := range lines {
		lines[i] = indent + strings.TrimRight(lines[i], " ")
	}
	return "", lines
}

// approvalArgLines bounds the rows of each argument in the approval
// question: a long one (a file's content) leaves room for the next (its
// path).
const approvalArgLines = 2

// approvalArgs lays out a call's arguments for the approval question, one
// argument a line (two when long), at most rows lines: what is approved
// is read there, and one line of them all, cut at the width, hid the
// path of a file write behind its content ("content=\"ssh-ed25519
// AAAA…\", path=\"/home/user/.ssh/a…"), and at 40 columns the source of
// a move.
func approvalArgs(raw json.RawMessage, inner, rows int) []string {
	rows = max(rows, 1)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || len(obj) == 0 {
		s := orText(sanitize.Line(strings.TrimSpace(string(raw))), "(no arguments)")
		return capLines(wrapCells(s, inner), rows, inner)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for i, k := range keys {
		v := strings.TrimSpace(string(obj[k]))
		if s, ok := jsonString(obj[k]); ok {
			// Quoted as Go quotes: a control character shows as \x1b,
			// never reaches the terminal.
			v = strconv.Quote(s)
		}
		ls := capLines(wrapCells(sanitize.Line(k+"="+v), inner), approvalArgLines, inner)
		after := len(keys) - i - 1
		room := rows - len(out)
		if after > 0 {
			room-- // for the line saying how many more there are
		}
		if len(ls) > room {
			if room > 0 {
				out = append(out, capLines(ls, room, inner)...)
			} else {
				after++
			}
			if after > 0 {
				out = append(out, ansi.Truncate(fmt.Sprintf("… and %d more arguments", after), inner, "…"))
			}
			return out
		}
		out = append(out, ls...)
	}
	return out
}

func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// wrapCells cuts s into lines of at most width cells, anywhere.
func wrapCells(s string, width int) []string {
	return strings.Split(ansi.Hardwrap(s, max(width, 1), true), "\n")
}

// capLines keeps at most n lines, the last one ending in "…" when some
// were left out.
func capLines(ls []string, n, width int) []string {
	if len(ls) <= n {
		return ls
	}
	ls = ls[:n]
	ls[n-1] = ansi.Truncate(ls[n-1], max(width-1, 1), "") + "…"
	return ls
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
