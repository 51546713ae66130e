package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// agentBackend adds compaction and agent profiles to the fake backend.
type agentBackend struct {
	*fakeBackend
	focus   string
	agent   string
	profile []AgentInfo
}

func (b *agentBackend) Compact(ctx context.Context, focus string) (*agent.Compaction, error) {
	b.focus = focus
	return &agent.Compaction{Seq: 1, Boundary: 12, Summary: "We looked up the weather.\x1b[31m", Found: []string{"weather_current"},
		Before: 9000, After: 800, Usage: agent.Usage{InputTokens: 9100, OutputTokens: 120}}, nil
}

func (b *agentBackend) Agents() ([]AgentInfo, error) { return b.profile, nil }

func (b *agentBackend) SetAgent(name string) (string, error) {
	b.agent = name
	return "the theme applies at the next start", nil
}

func notices(m *Model) string {
	var out []string
	for _, it := range m.chat.items {
		if it.kind == itemNotice || it.kind == itemWarning || it.kind == itemError {
			out = append(out, it.text)
		}
	}
	return strings.Join(out, "\n")
}

func TestCompactAndAgentCommands(t *testing.T) {
	t.Parallel()
	b := &agentBackend{fakeBackend: newFakeBackend(), profile: []AgentInfo{{Name: "reviewer", Description: "Reviews", Source: "project"}}}
	m, _, _ := newTestModel(t, b.fakeBackend, 120, 40, Options{})
	m.b = b
	typeText(m, "/compact keep the dates")
	run(m, press(m, "enter"))
	if b.focus != "keep the dates" {
		t.Errorf("focus %q", b.focus)
	}
	got := notices(m)
	for _, want := range []string{"compacted: 12 messages summarised · context ~9000 → ~800 tokens · 1 found tools stay loaded · summary 9100 in / 120 out", "We looked up the weather."} {
		if !strings.Contains(got, want) {
			t.Errorf("notices %q, want %q", got, want)
		}
	}
	if strings.Contains(got, "\x1b") {
		t.Errorf("the summary reached the chat with an escape sequence: %q", got)
	}

	typeText(m, "/agent")
	run(m, press(m, "enter"))
	if got := notices(m); !strings.Contains(got, "reviewer (project) Reviews") {
		t.Errorf("/agent lists %q", got)
	}
	typeText(m, "/agent reviewer")
	run(m, press(m, "enter"))
	if b.agent != "reviewer" || !strings.Contains(notices(m), "agent set to reviewer (the conversation is kept)") {
		t.Errorf("agent %q, notices %q", b.agent, notices(m))
	}

	// An automatic compaction reported by a turn is shown too.
	m.handleEvent(eventMsg{Event: agent.Event{Type: agent.EventCompacted, Compaction: &agent.Compaction{Boundary: 3, Auto: true, Summary: "s"}}})
	if !strings.Contains(notices(m), "compacted automatically") {
		t.Errorf("auto compaction not shown: %q", notices(m))
	}
}

func TestCompactWithoutSupportSaysSo(t *testing.T) {
	t.Parallel()
	m, _, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{})
	typeText(m, "/compact")
	run(m, press(m, "enter"))
	if !strings.Contains(notices(m), "cannot be compacted") {
		t.Errorf("notices %q", notices(m))
	}
}
