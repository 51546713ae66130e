package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// #14 case 2: no escape sequence from outside reaches the frame, whatever
// path it takes (warnings, text, messages, tool names and results, errors,
// alerts, searches).
func TestUntrustedTextIsSanitised(t *testing.T) {
	evil := "ok\x1b]52;c;ZWNobw==\x07\x1b]0;pwned\x07\x1b[2J\x1b]8;;https://e\x1b\\link\x1b]8;;\x1b\\"
	cases := map[string]func(m *Model){
		"warning": func(m *Model) {},
		"text": func(m *Model) {
			m.Update(eventMsg{Event: agent.Event{Type: agent.EventTextDelta, Text: "text " + evil}})
		},
		"message": func(m *Model) {
			msg := agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("msg " + evil)}}
			m.Update(eventMsg{Event: agent.Event{Type: agent.EventMessage, Message: &msg}})
		},
		"toolname": func(m *Model) {
			m.Update(eventMsg{Event: agent.Event{Type: agent.EventToolStarted, Tool: &agent.ToolEvent{ID: "1", Name: "t" + evil, Input: []byte(`{}`)}}})
		},
		"result": func(m *Model) {
			m.Update(eventMsg{Event: agent.Event{Type: agent.EventToolStarted, Tool: &agent.ToolEvent{ID: "1", Name: "t", Input: []byte(`{}`)}}})
			m.Update(eventMsg{Event: agent.Event{Type: agent.EventToolFinished, Tool: &agent.ToolEvent{ID: "1", Name: "t", Result: "res " + evil}}})
		},
		"error": func(m *Model) {
			m.Update(eventMsg{Event: agent.Event{Type: agent.EventError, Err: errors.New("err " + evil)}})
		},
		"alert": func(m *Model) { m.Update(alertMsg{Text: "alert " + evil}) },
		"search": func(m *Model) {
			m.Update(eventMsg{Event: agent.Event{Type: agent.EventSearchStarted, Search: &agent.SearchEvent{ID: "s", Query: "q" + evil}}})
		},
	}
	for name, f := range cases {
		opts := Options{}
		if name == "warning" {
			opts.Warnings = []string{"warn " + evil}
		}
		m, _, _ := newTestModel(t, newFakeBackend(), 100, 30, opts)
		f(m)
		v := m.View().Content
		if strings.Contains(v, "\x1b]52") || strings.Contains(v, "\x1b[2J") || strings.Contains(v, "\x1b]0;") {
			t.Errorf("%s leaks", name)
		}
	}
}
