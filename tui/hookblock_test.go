package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools/permission"
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

// A call a PreToolUse hook (or a deny rule) refused never ran: its card
// says "denied" with the reason, not "failed"; a call that ran and failed
// still says failed.
func TestRefusedCallCardSaysDenied(t *testing.T) {
	for _, tc := range []struct {
		name       string
		permission *permission.Decision
		want, not  string
	}{
		{"hook", &permission.Decision{Behavior: permission.Deny, Source: permission.SourceHook, Reason: "weather lookups are off today"}, "denied", "failed"},
		{"rule", &permission.Decision{Behavior: permission.Deny, Source: permission.SourceRule, Rule: "tt__get_weather"}, "denied", "failed"},
		{"tool failed", nil, "failed", "denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newFakeBackend()
			m, _, _ := newTestModel(t, b, 100, 24, Options{})
			call := agent.ToolEvent{ID: "c1", Name: "tt__get_weather", Input: []byte(`{"city":"Berlin"}`)}
			fin := call
			fin.Result, fin.IsError, fin.Permission = "weather lookups are off today", true, tc.permission
			feed(m, b, []agent.Event{{Type: agent.EventToolStarted, Tool: &call}, {Type: agent.EventToolFinished, Tool: &fin}})
			f := frame(m)
			if !strings.Contains(f, tc.want) || strings.Contains(f, tc.not) {
				t.Errorf("card should say %q, not %q:\n%s", tc.want, tc.not, f)
			}
		})
	}
}
