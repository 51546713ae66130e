package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
)

func TestGoldenFrames(t *testing.T) {
	sizes := [][2]int{{40, 12}, {80, 24}, {120, 40}, {200, 50}}
	tests := []struct {
		name  string
		opts  Options
		setup func(m *Model, b *fakeBackend, c *clock)
	}{
		{name: "empty", setup: func(*Model, *fakeBackend, *clock) {}},
		{name: "conversation", setup: func(m *Model, b *fakeBackend, c *clock) {
			typeText(m, "weather in Paris?")
			press(m, "enter")
			feed(m, b, conversation())
		}},
		{name: "working", setup: func(m *Model, b *fakeBackend, c *clock) {
			typeText(m, "weather in Paris?")
			press(m, "enter")
			feed(m, b, conversation()[:6])
			c.t = c.t.Add(2300 * time.Millisecond)
		}},
		{name: "expanded", setup: func(m *Model, b *fakeBackend, c *clock) {
			typeText(m, "weather in Paris?")
			press(m, "enter")
			feed(m, b, conversation())
			press(m, "ctrl+o")
			press(m, "pgup")
		}},
		{name: "approval", setup: func(m *Model, b *fakeBackend, c *clock) {
			m.Update(approvalMsg{Req: ApprovalRequest{Tool: agent.ToolEvent{ID: "c9", Name: "delete_file", Server: "fs", Input: []byte(`{"path":"/tmp/x"}`)}}})
		}},
		{name: "resumed", opts: Options{History: history()}, setup: func(*Model, *fakeBackend, *clock) {}},
		{name: "help", setup: func(m *Model, b *fakeBackend, c *clock) {
			typeText(m, "/help")
			press(m, "enter")
		}},
		{name: "sessions", setup: func(m *Model, b *fakeBackend, c *clock) {
			typeText(m, "/sessions")
			run(m, press(m, "enter"))
		}},
		{name: "nopane", setup: func(m *Model, b *fakeBackend, c *clock) {
			typeText(m, "weather in Paris?")
			press(m, "enter")
			feed(m, b, conversation())
			press(m, "ctrl+t")
		}},
		{name: "server_tool", setup: func(m *Model, b *fakeBackend, c *clock) {
			typeText(m, "news about Go 1.26?")
			press(m, "enter")
			st := agent.ServerTool{ID: "w1", Name: "web_search", Input: []byte(`{"query":"go 1.26 release"}`),
				Sources: []agent.Source{{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes"}}}
			msg := agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ServerToolPart(st), agent.TextPart("Go 1.26 is out.")}}
			feed(m, b, []agent.Event{
				{Type: agent.EventServerTool, ServerTool: &agent.ServerTool{ID: "w1", Name: "web_search", Input: st.Input}},
				{Type: agent.EventTextDelta, Text: "Go 1.26 is out."},
				{Type: agent.EventMessage, Message: &msg},
				{Type: agent.EventUsage, Usage: &agent.Usage{InputTokens: 100, OutputTokens: 10, ServerToolUses: map[string]int{"web_search": 1}}},
				{Type: agent.EventDone},
			})
		}},
	}
	for _, tt := range tests {
		for _, sz := range sizes {
			name := fmt.Sprintf("%s_%dx%d", tt.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				b := newFakeBackend()
				m, _, c := newTestModel(t, b, sz[0], sz[1], tt.opts)
				tt.setup(m, b, c)
				f := frame(m)
				lines := strings.Split(strings.TrimSuffix(f, "\n"), "\n")
				if len(lines) != sz[1] {
					t.Errorf("frame has %d lines, want %d", len(lines), sz[1])
				}
				for i, l := range lines {
					if w := ansi.StringWidth(l); w > sz[0] {
						t.Errorf("line %d is %d cells wide, terminal has %d: %q", i, w, sz[0], l)
					}
				}
				golden(t, name, f)
			})
		}
	}
}

// Inline (the default) frames: what was printed to the scrollback, then
// the redrawn area, at each size.
func TestInlineGoldenFrames(t *testing.T) {
	sizes := [][2]int{{40, 12}, {80, 24}, {120, 40}, {200, 50}}
	evs := conversation()
	tests := []struct {
		name  string
		setup func(m *Model, b *fakeBackend)
	}{
		{"streaming", func(m *Model, b *fakeBackend) {
			typeText(m, "weather in Paris?")
			run(m, press(m, "enter"))
			feed(m, b, evs[:9])
			feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: "## Paris, next 3 days\n\n| day | high |\n|---|---|\n| Thu | 14°C |\n"}})
		}},
		{"search", func(m *Model, b *fakeBackend) {
			typeText(m, "weather in Paris?")
			run(m, press(m, "enter"))
			feed(m, b, evs[:5])
		}},
		{"card", func(m *Model, b *fakeBackend) {
			typeText(m, "weather in Paris?")
			run(m, press(m, "enter"))
			feed(m, b, evs[:8])
		}},
		{"approval", func(m *Model, b *fakeBackend) {
			typeText(m, "delete it")
			run(m, press(m, "enter"))
			call := &agent.ToolEvent{ID: "c9", Name: "delete_file", Server: "fs", Input: []byte(`{"path":"/tmp/x"}`)}
			feed(m, b, []agent.Event{{Type: agent.EventToolStarted, Tool: call}, {Type: agent.EventApproval, Tool: call}})
			m.Update(approvalMsg{Req: ApprovalRequest{Tool: *call}})
		}},
		{"picker", func(m *Model, b *fakeBackend) {
			typeText(m, "/sessions")
			run(m, press(m, "enter"))
		}},
		{"done", func(m *Model, b *fakeBackend) {
			typeText(m, "weather in Paris?")
			run(m, press(m, "enter"))
			feed(m, b, evs)
			typeText(m, "/co")
		}},
	}
	for _, tt := range tests {
		for _, sz := range sizes {
			name := fmt.Sprintf("inline_%s_%dx%d", tt.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				b := newFakeBackend()
				m, _, rec := newInlineModel(t, b, sz[0], sz[1], Options{})
				tt.setup(m, b)
				f := frame(m)
				lines := strings.Split(strings.TrimSuffix(f, "\n"), "\n")
				if len(lines) > sz[1] {
					t.Errorf("the redrawn area has %d lines, the terminal %d", len(lines), sz[1])
				}
				for i, l := range append(lines, strings.Split(rec.String(), "\n")...) {
					if w := ansi.StringWidth(l); w > sz[0] {
						t.Errorf("line %d is %d cells wide, terminal has %d: %q", i, w, sz[0], l)
					}
				}
				golden(t, name, rec.String()+"\n"+strings.Repeat("┄", sz[0])+"\n"+f)
			})
		}
	}
}
