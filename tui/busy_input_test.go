package tui

import (
	"strings"
	"testing"

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
