package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// A prompt a UserPromptSubmit hook refuses was never sent: the hook's
// reason is shown and the prompt goes back to the input, to edit.
func TestHookBlockedPromptComesBack(t *testing.T) {
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 80, 24, Options{})
	typeText(m, "deploy to prod")
	run(m, press(m, "enter"))
	if m.input.Value() != "" {
		t.Fatalf("input not cleared on send: %q", m.input.Value())
	}
	feed(m, b, []agent.Event{{Type: agent.EventError, Err: agent.WithKind(agent.ErrBlocked,
		errors.New("the UserPromptSubmit hook blocked the prompt: not on Fridays"))}, {Type: agent.EventDone}})
	if got := m.input.Value(); got != "deploy to prod" {
		t.Errorf("input = %q, want the refused prompt", got)
	}
	if f := frame(m); !strings.Contains(f, "not on Fridays") {
		t.Errorf("frame lacks the hook's reason:\n%s", f)
	}
}
