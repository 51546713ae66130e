package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/agent"
)

// A sampling approval whose server request ends first (cancelled, timed
// out, connection lost) is withdrawn unanswered, with one line saying why;
// the next question comes up. One already answered says nothing when its
// Done closes later. A form withdrawn says so too.
func TestServerDialogsWithdrawn(t *testing.T) {
	m, _, _ := newTestModel(t, &fakeBackend{}, 100, 30, Options{})
	replied := 0
	done1, done2 := make(chan struct{}), make(chan struct{})
	sampling := func(id string, done chan struct{}) ApprovalRequest {
		return ApprovalRequest{Tool: agent.ToolEvent{ID: id, Name: "sample claude-x for everything", Server: "everything", Input: []byte(`{}`)},
			Reply: func(Decision) { replied++ }, SessionOnly: true, Done: done,
			Why: func() string { return "the server cancelled its request" }}
	}
	_, wait1 := m.Update(approvalMsg{Req: sampling("s1", done1)})
	_, wait2 := m.Update(approvalMsg{Req: sampling("s2", done2)})
	if wait1 == nil || wait2 == nil {
		t.Fatal("an approval with Done gives no command to wait for it")
	}
	close(done1)
	m.Update(wait1())
	if len(m.approvals) != 1 || m.approvals[0].Tool.ID != "s2" || replied != 0 {
		t.Fatalf("after s1's Done: %d approvals left, %d replies", len(m.approvals), replied)
	}
	want := "sample claude-x for everything: withdrawn unanswered, the server cancelled its request"
	if got := strings.Count(notices(m), want); got != 1 {
		t.Errorf("%d lines %q:\n%s", got, want, notices(m))
	}
	// s2 is answered; its Done closing afterwards withdraws nothing.
	if _, cmd := m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"}); cmd != nil {
		cmd()
	}
	close(done2)
	m.Update(wait2())
	if replied != 1 || strings.Count(notices(m), "withdrawn") != 1 {
		t.Errorf("an answered approval: %d replies, notices:\n%s", replied, notices(m))
	}

	fdone := make(chan struct{})
	_, fwait := m.Update(formMsg{Req: FormRequest{Server: "everything", Message: "Who?", Done: fdone,
		Fields: []FormField{{Name: "name", Label: "name", Type: "string"}}, Reply: func(string, map[string]any) { replied++ },
		Why: func() string { return "the request timed out" }}})
	close(fdone)
	m.Update(fwait())
	if len(m.forms) != 0 || replied != 1 || !strings.Contains(notices(m), "MCP server everything's form: withdrawn unanswered, the request timed out") {
		t.Errorf("the form: %d left, %d replies, notices:\n%s", len(m.forms), replied, notices(m))
	}
}
