package tui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
)

// What is sent while a turn runs and must wait for it stays in the input,
// and the hint saying so goes when the turn ends: a /mcp action, a server's
// prompt or a custom command were cleared from the input and never run,
// and "a turn is running: esc cancels it" stayed under an idle prompt.
func TestSentDuringATurnWaitsInTheInput(t *testing.T) {
	for _, text := range []string{"a second prompt", "/mcp reconnect ev", "/ev:args-prompt Paris", "/review 42"} {
		t.Run(text, func(t *testing.T) {
			m, f, turns := newMCPModel(t)
			f.info.Commands = []CommandInfo{{Name: "review", Description: "Review a pull request", Source: "user", Path: "/u/commands/review.md"}}
			m.Update(infoMsg(f.Info()))
			typeText(m, "first")
			run(m, press(m, "enter"))
			if !m.working {
				t.Fatal("the first prompt did not start a turn")
			}
			typeText(m, text)
			run(m, press(m, "enter"))
			if v := m.input.Value(); v != text {
				t.Errorf("input %q after enter during the turn, want %q kept", v, text)
			}
			if m.hint == "" || !strings.Contains(m.hint, "esc cancels it") {
				t.Errorf("hint %q, want one saying the turn runs", m.hint)
			}
			if len(f.controls) != 0 || len(turns.started) != 1 {
				t.Errorf("ran during the turn: controls %q, turns %q", f.controls, turns.started)
			}
			m.Update(eventMsg{Event: agent.Event{Type: agent.EventDone}})
			if m.hint != "" {
				t.Errorf("hint %q after the turn ended", m.hint)
			}
			run(m, press(m, "enter"))
			if m.input.Value() != "" {
				t.Errorf("input %q after sending it once the turn ended", m.input.Value())
			}
		})
	}
}

// While an approval waits, esc denies the call (the dialog says so) and
// the turn goes on: the working line does not also say "esc to cancel".
func TestWorkLineDuringApproval(t *testing.T) {
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 120, 40, Options{})
	typeText(m, "delete it")
	run(m, press(m, "enter"))
	if l := ansi.Strip(m.workLine()); !strings.Contains(l, "esc to cancel") {
		t.Fatalf("working line before the approval: %q", l)
	}
	call := &agent.ToolEvent{ID: "c1", Name: "delete_file", Server: "fs", Input: []byte(`{}`)}
	feed(m, b, []agent.Event{{Type: agent.EventToolStarted, Tool: call}, {Type: agent.EventApproval, Tool: call}})
	m.Update(approvalMsg{Req: ApprovalRequest{Tool: *call}})
	if l := ansi.Strip(m.workLine()); strings.Contains(l, "esc to cancel") || !strings.Contains(l, "waiting for your approval") {
		t.Errorf("working line during the approval: %q", l)
	}
	run(m, press(m, "esc"))
	if l := ansi.Strip(m.workLine()); !strings.Contains(l, "esc to cancel") {
		t.Errorf("working line after esc denied the call: %q", l)
	}
}

// /model NAME sets any id (a provider may serve ids no list names), but a
// near miss of a listed model says which one was likely meant, before the
// next request fails on it.
func TestModelTypoSaysWhatWasMeant(t *testing.T) {
	for _, tc := range []struct{ name, warn string }{
		{"big-3", "big-3 is not among the provider's models: did you mean big-2? (/model big-2)"},
		{"big-2", ""},
		{"my-own-deployment", ""},
		{"other:big-3", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newFakeBackend()
			m, _, _ := newTestModel(t, b, 120, 40, Options{})
			typeText(m, "/model "+tc.name)
			run(m, press(m, "enter"))
			f := strings.Join(strings.Fields(frame(m)), " ")
			if !strings.Contains(f, "model set to "+tc.name) {
				t.Fatalf("not set:\n%s", frame(m))
			}
			if got := strings.Contains(f, "did you mean"); got != (tc.warn != "") || !strings.Contains(f, tc.warn) {
				t.Errorf("want warning %q in:\n%s", tc.warn, frame(m))
			}
		})
	}
}

// /model NAME with a name the backend's tables do not know sets it and
// says so in one warning (claude-nonexistent-9 used to be set without a
// word, and the next request failed); a listed model, or a typo of one
// (whose "did you mean" says more), gets no such warning.
func TestModelUnknownToTheAgentIsSaid(t *testing.T) {
	const unknown = "is not a model the agent knows"
	for _, tc := range []struct {
		name string
		warn bool
	}{
		{"claude-nonexistent-9", true},
		{"big-2", false},
		{"big-3", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newFakeBackend()
			m, _, _ := newTestModel(t, b, 200, 40, Options{})
			typeText(m, "/model "+tc.name)
			run(m, press(m, "enter"))
			f := strings.Join(strings.Fields(frame(m)), " ")
			if !strings.Contains(f, "model set to "+tc.name) {
				t.Fatalf("not set:\n%s", frame(m))
			}
			if got := strings.Count(f, unknown); got != map[bool]int{true: 1}[tc.warn] {
				t.Errorf("%q said %d times, want it %v:\n%s", unknown, got, tc.warn, frame(m))
			}
		})
	}
}

// A turn cancelled while a tool runs says on its card that the tool may
// have completed (what the model reads too); one cancelled while its
// approval waited says it never ran. The running one said "interrupted:
// the turn was cancelled before this tool call ran" mid-progress.
func TestCancelledCardsSayWhetherTheToolRan(t *testing.T) {
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 200, 40, Options{})
	typeText(m, "do both")
	run(m, press(m, "enter"))
	running := &agent.ToolEvent{ID: "c1", Name: "long_job", Server: "jobs", Input: []byte(`{}`)}
	waiting := &agent.ToolEvent{ID: "c2", Name: "delete_file", Server: "fs", Input: []byte(`{}`)}
	feed(m, b, []agent.Event{{Type: agent.EventToolStarted, Tool: running},
		{Type: agent.EventToolProgress, Progress: &agent.ToolProgress{ID: "c1", Progress: 2}},
		{Type: agent.EventToolStarted, Tool: waiting}, {Type: agent.EventApproval, Tool: waiting}})
	m.cancelTurn()
	for id, want := range map[string]string{"c1": agent.StoppedResult, "c2": agent.InterruptedResult} {
		if c := m.chat.cards[id].card; c.Status != statusCancelled || c.Result != want {
			t.Errorf("card %s: status %v, result %q; want cancelled, %q", id, c.Status, c.Result, want)
		}
	}
	// Cancelled, not failed: the tool did nothing wrong ("✗ failed 2.1s").
	if f := frame(m); strings.Count(f, "⊘ cancelled") != 2 || strings.Contains(f, "✗ failed") {
		t.Errorf("the cards do not say cancelled:\n%s", f)
	}
	// So does a call the session reports stopped by the cancel.
	late := &agent.ToolEvent{ID: "c3", Name: "long_job", Server: "jobs", Input: []byte(`{}`), Result: agent.StoppedResult, IsError: true,
		Err: agent.WithKind(agent.ErrCancelled, errors.New(agent.StoppedResult))}
	feed(m, b, []agent.Event{{Type: agent.EventToolStarted, Tool: late}, {Type: agent.EventToolFinished, Tool: late}})
	if c := m.chat.cards["c3"].card; c.Status != statusCancelled {
		t.Errorf("a call finished as cancelled: status %v", c.Status)
	}
}

// A resumed session shows a call its cancel stopped as the live card did:
// the session's own answers to such calls, and a call whose answer never
// came, read "⊘ cancelled", not "✗ failed"; a tool's own error still fails.
func TestResumedCancelledCards(t *testing.T) {
	t.Parallel()
	call := func(id string) agent.Part {
		return agent.ToolCallPart(agent.ToolCall{ID: id, Name: "long_job", Input: []byte(`{}`)})
	}
	result := func(id, text string) agent.Part {
		return agent.ToolResultPart(agent.ToolResult{CallID: id, Name: "long_job", Text: text, IsError: true})
	}
	h := []agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("go")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{call("s"), call("i"), call("f"), call("n")}},
		{Role: agent.RoleUser, Parts: []agent.Part{result("s", agent.StoppedResult), result("i", agent.InterruptedResult), result("f", "long_job failed: disk full")}},
	}
	m, _, _ := newTestModel(t, newFakeBackend(), 120, 60, Options{History: h})
	for id, want := range map[string]cardStatus{"s": statusCancelled, "i": statusCancelled, "f": statusFailed, "n": statusCancelled} {
		if got := m.chat.cards[id].card.Status; got != want {
			t.Errorf("card %s: status %v, want %v", id, got, want)
		}
	}
}

// Keys typed before an approval question could be read go to the input,
// not to the question: "yes I also want" typed while the turn ran
// approved a destructive call with its "y". The answers are offered (and
// taken) once the guard is over, ApprovalGuard after the last key or paste
// typed in it: a tick armed once, when the question appeared, came among
// the keys of a draft still being typed, and its next "y" approved the
// call; ctrl+c still denies and cancels at once.
func TestApprovalIgnoresTypeAhead(t *testing.T) {
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 120, 40, Options{ApprovalGuard: time.Hour})
	typeText(m, "delete it")
	run(m, press(m, "enter"))
	var got []Decision
	call := agent.ToolEvent{ID: "c1", Name: "delete_file", Server: "fs", Input: []byte(`{}`)}
	m.Update(approvalMsg{Req: ApprovalRequest{Tool: call, Reply: func(d Decision) { got = append(got, d) }}})
	start := approvalReadyMsg{seq: m.approvals[0].seq, typed: m.approvalTyped} // armed by the question
	typeText(m, "yes I also want to know wh")
	m.Update(start) // among the keys of the draft
	typeText(m, "y")
	m.Update(tea.PasteMsg{Content: " it failed"})
	if len(m.approvals) != 1 || len(got) != 0 {
		t.Fatalf("type-ahead answered the approval: %v, %d waiting", got, len(m.approvals))
	}
	if v := m.input.Value(); v != "yes I also want to know why it failed" {
		t.Errorf("the keys typed ahead are not in the input: %q", v)
	}
	if f := frame(m); strings.Contains(f, "y allow once") {
		t.Errorf("the answers are offered during the guard:\n%s", f)
	}
	m.Update(approvalReadyMsg{seq: m.approvals[0].seq, typed: m.approvalTyped - 1}) // armed by the "y", before the paste
	if m.approvalReady() {
		t.Fatal("the guard ended before ApprovalGuard had passed since the last key or paste")
	}
	m.Update(approvalReadyMsg{seq: m.approvals[0].seq, typed: m.approvalTyped})
	if f := frame(m); !strings.Contains(f, "y allow once") {
		t.Errorf("the answers are not offered after the guard:\n%s", f)
	}
	run(m, press(m, "n"))
	if len(m.approvals) != 0 || len(got) != 1 || got[0] != Deny {
		t.Fatalf("n after the guard: %v, %d waiting", got, len(m.approvals))
	}
}

// A provider that numbers each response's calls from zero asks the next
// approval with the id the last one had (call_0 again, e9366a6): it is a
// new question, and keys typed before it could be read do not answer it.
func TestApprovalGuardWithRepeatedCallIDs(t *testing.T) {
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 120, 40, Options{ApprovalGuard: time.Hour})
	typeText(m, "delete both")
	run(m, press(m, "enter"))
	var got []Decision
	ask := func() {
		call := agent.ToolEvent{ID: "call_0", Name: "delete_file", Server: "fs", Input: []byte(`{}`)}
		m.Update(approvalMsg{Req: ApprovalRequest{Tool: call, Reply: func(d Decision) { got = append(got, d) }}})
	}
	ask()
	m.Update(approvalReadyMsg{seq: m.approvals[0].seq, typed: m.approvalTyped})
	run(m, press(m, "y"))
	if len(got) != 1 || got[0] != Allow {
		t.Fatalf("the first approval, answered after its guard: %v", got)
	}
	ask()
	typeText(m, "yes I also want")
	if len(m.approvals) != 1 || len(got) != 1 {
		t.Fatalf("type-ahead answered the second approval of call_0: %v", got)
	}
	if v := m.input.Value(); v != "yes I also want" {
		t.Errorf("the keys typed ahead are not in the input: %q", v)
	}
}
