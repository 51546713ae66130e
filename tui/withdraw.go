package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/sanitize"
)

// A dialog an MCP server's request opened (a sampling approval, a form, a
// URL to open) goes away by itself when the request ends first: the server
// cancelled it, it timed out, or the connection dropped. The chat says so
// in one line, so the user knows why the question vanished and that no
// answer was sent.

// approvalGoneMsg withdraws the approval whose Done closed.
type approvalGoneMsg struct{ id string }

// approvalGone waits for req's Done (nil when it has none).
func approvalGone(req ApprovalRequest) tea.Cmd {
	done := req.Done
	if done == nil {
		return nil
	}
	id := req.Tool.ID
	return func() tea.Msg {
		<-done
		return approvalGoneMsg{id}
	}
}

// withdrawApproval removes the approval id if it is still asked, and says
// so; one already answered is left alone.
func (m *Model) withdrawApproval(id string) {
	for i, req := range m.approvals {
		if req.Tool.ID != id {
			continue
		}
		if i == 0 {
			m.alwaysPick = false
		}
		m.approvals = append(m.approvals[:i:i], m.approvals[i+1:]...)
		if len(m.approvals) == 0 && len(m.hint) > 0 && m.hint == "waiting for your approval of "+req.Tool.Name {
			m.hint = ""
		}
		m.chat.notice(itemNotice, withdrawn(req.Tool.Name, req.Why))
		m.relayout()
		return
	}
}

// withdrawn is the line for what was withdrawn, and why when known.
func withdrawn(what string, why func() string) string {
	reason := "the request ended"
	if why != nil {
		if r := why(); r != "" {
			reason = r
		}
	}
	return sanitize.Line(what) + ": withdrawn unanswered, " + reason
}

// kind is what the form asks for, for the line that withdraws it.
func (f *form) kind() string {
	if f.req.URL != "" {
		return "link to open"
	}
	return "form"
}
