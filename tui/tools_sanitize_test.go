package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"

	"github.com/charmbracelet/x/ansi"
)

// A server's tool names and descriptions are untrusted: /tools and the
// discovered-tools pane show them without their escape sequences (a
// description's "\x1b[2J" cleared the screen under /tools, and its OSC 52
// wrote the clipboard).
func TestToolTextIsSanitized(t *testing.T) {
	evil := []string{"\x1b]0;", "\x1b[2J", "\x1b]52;", "\x07", "pwned", "ZXZpbA"}
	for _, tc := range []struct {
		name string
		do   func(m *Model)
	}{
		{"/tools", func(m *Model) { typeText(m, "/tools"); run(m, press(m, "enter")) }},
		{"/search and the pane", func(m *Model) {
			typeText(m, "/search weather")
			run(m, press(m, "enter"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newFakeBackend()
			b.tools[1] = ToolInfo{Name: "weather\x1b[31m_forecast", Server: "wea\x1b]0;x\x07ther",
				Description: "Multi-day \x1b]0;pwned\x07 forecast \x1b[2J for \x1b]52;c;ZXZpbA==\x07 a city", Deferred: true}
			m, _, _ := newTestModel(t, b, 120, 40, Options{})
			tc.do(m)
			raw := m.View().Content
			if plain := ansi.Strip(raw); !strings.Contains(plain, "forecast") || !strings.Contains(plain, "a city") {
				t.Fatalf("the tool is not shown:\n%s", plain)
			}
			for _, e := range evil {
				if strings.Contains(raw, e) {
					t.Errorf("%q reached the terminal:\n%q", e, raw)
				}
			}
		})
	}
}

// Completion candidates a server names (its prompts) show sanitised above
// the input.
func TestCompletionCandidatesSanitized(t *testing.T) {
	m, _, _ := newMCPModel(t)
	m.mcpPrompts = append(m.mcpPrompts, MCPPromptInfo{Server: "ev", Name: "x\x1b]0;pwned\x07y"})
	typeText(m, "/ev:")
	raw := m.View().Content
	if plain := ansi.Strip(raw); !strings.Contains(plain, "/ev:args-prompt") {
		t.Fatalf("no candidates:\n%s", plain)
	}
	for _, e := range []string{"\x1b]0;", "\x07", "pwned"} {
		if strings.Contains(raw, e) {
			t.Errorf("%q reached the terminal: %q", e, raw)
		}
	}
}

// A turn's error (a provider's message is the provider's text), a warning
// (a server's stderr) and the backend's notes between turns reach the chat
// sanitised: notices are sanitised where they are drawn, for every caller
// (the notes between turns were not).
func TestNoticesSanitized(t *testing.T) {
	for _, ev := range []agent.Event{
		{Type: agent.EventError, Err: errors.New("anthropic API error (400): invalid_request_error: bad \x1b]0;pwned\x07 \x1b[2J request")},
		{Type: agent.EventWarning, Text: "MCP server x: stderr says \x1b]52;c;ZXZpbA==\x07 hi \x1b[2J"},
	} {
		b := newFakeBackend()
		m, _, _ := newTestModel(t, b, 120, 40, Options{})
		typeText(m, "hi")
		run(m, press(m, "enter"))
		feed(m, b, []agent.Event{ev, {Type: agent.EventDone}})
		// What the backend noticed between turns (a server's words).
		m.Update(refreshedMsg{notes: []Note{{Text: "MCP server x says \x1b]0;pwned\x07 hello \x1b[2J", Warning: true}}, info: b.Info()})
		raw := m.View().Content
		if !strings.Contains(ansi.Strip(raw), "MCP server x says") {
			t.Fatalf("the note is not shown:\n%s", ansi.Strip(raw))
		}
		if plain := ansi.Strip(raw); !strings.Contains(plain, "bad") && !strings.Contains(plain, "stderr says") {
			t.Fatalf("not shown:\n%s", plain)
		}
		for _, e := range []string{"\x1b]0;", "\x1b]52;", "\x1b[2J", "\x07", "pwned", "ZXZpbA"} {
			if strings.Contains(raw, e) {
				t.Errorf("%v: %q reached the terminal", ev.Type, e)
			}
		}
	}
}
