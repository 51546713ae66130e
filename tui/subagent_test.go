package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
)

// subagentEvents are what two run_agent calls of one response stream, the
// two children interleaved as they run at once.
func subagentEvents() []agent.Event {
	sub := func(id, name string, in agent.Event) agent.Event {
		return agent.Event{Type: agent.EventSubagentEvent, Subagent: &agent.SubagentEvent{ID: id, Agent: name, Event: &in}}
	}
	return []agent.Event{
		{Type: agent.EventToolStarted, Tool: &agent.ToolEvent{ID: "c1", Name: "run_agent", Input: []byte(`{"agent":"weather","prompt":"Weather in Berlin?"}`)}},
		{Type: agent.EventToolStarted, Tool: &agent.ToolEvent{ID: "c2", Name: "run_agent", Input: []byte(`{"agent":"mail","prompt":"Mail Ann"}`)}},
		{Type: agent.EventSubagentStarted, Subagent: &agent.SubagentEvent{ID: "c1", Agent: "weather", Provider: "openai-chat", Model: "gpt-4.1", SessionID: "s-weather", Prompt: "Weather in Berlin?"}},
		{Type: agent.EventSubagentStarted, Subagent: &agent.SubagentEvent{ID: "c2", Agent: "mail", Provider: "openai-chat", Model: "gpt-4.1", Prompt: "Mail Ann"}},
		// Both children number their first search "s1".
		sub("c1", "weather", agent.Event{Type: agent.EventSearchStarted, Search: &agent.SearchEvent{ID: "s1", Where: "client", Query: "weather forecast"}}),
		sub("c2", "mail", agent.Event{Type: agent.EventSearchStarted, Search: &agent.SearchEvent{ID: "s1", Where: "client", Query: "send email"}}),
		sub("c1", "weather", agent.Event{Type: agent.EventSearchFinished, Search: &agent.SearchEvent{ID: "s1", Where: "client", Query: "weather forecast", Tools: []string{"tt__get_weather"}}}),
		sub("c2", "mail", agent.Event{Type: agent.EventSearchFinished, Search: &agent.SearchEvent{ID: "s1", Where: "client", Query: "send email", Tools: []string{"tt__send_email"}}}),
		sub("c1", "weather", agent.Event{Type: agent.EventToolStarted, Tool: &agent.ToolEvent{ID: "w2", Name: "tt__get_weather"}}),
		sub("c1", "weather", agent.Event{Type: agent.EventToolFinished, Tool: &agent.ToolEvent{ID: "w2", Name: "tt__get_weather", Duration: 12 * time.Millisecond}}),
		sub("c1", "weather", agent.Event{Type: agent.EventTextDelta, Text: "Sunny in Berlin."}),
		{Type: agent.EventSubagentFinished, Subagent: &agent.SubagentEvent{ID: "c1", Agent: "weather", SessionID: "s-weather", Result: "Sunny in Berlin.",
			Summary: "1 search found: tt__get_weather; called: tt__get_weather", Requests: 3}},
		{Type: agent.EventToolFinished, Tool: &agent.ToolEvent{ID: "c1", Name: "run_agent", Result: "Sunny in Berlin.", Duration: time.Second}},
	}
}

// A subagent is a card that folds (ctrl+o, as every card), and its
// searches are in the pane under its name, apart from the other child's.
func TestSubagentCardsAndPane(t *testing.T) {
	t.Parallel()
	m, _, _ := newTestModel(t, newFakeBackend(), 140, 40, Options{})
	typeText(m, "go")
	run(m, press(m, "enter"))
	for _, ev := range subagentEvents() {
		m.Update(eventMsg{Event: cleanEvent(ev)})
	}
	f := frame(m)
	for _, want := range []string{"⇢ weather · subagent · openai-chat/gpt-4.1", "✓ 3 requests", "1 search found: tt__get_weather",
		"⇢ mail · subagent", "… running", "weather · client", "mail · client", "↳ called ✓ 12ms"} {
		if !strings.Contains(f, want) {
			t.Errorf("folded: %q missing from the frame:\n%s", want, f)
		}
	}
	if strings.Contains(f, "answer:") {
		t.Errorf("a folded card shows the whole answer:\n%s", f)
	}
	run(m, press(m, "ctrl+o"))
	f = frame(m)
	for _, want := range []string{"task:", "◇ client search “weather forecast” → tt__get_weather", "⚙ tt__get_weather ✓ 12ms", "answer:", "Sunny in Berlin.", "session s-weather"} {
		if !strings.Contains(f, want) {
			t.Errorf("expanded: %q missing from the frame:\n%s", want, f)
		}
	}
	run(m, press(m, "ctrl+o"))
	if strings.Contains(frame(m), "answer:") {
		t.Error("ctrl+o again did not fold the card")
	}
}

// A child's approval is asked naming the child.
func TestSubagentApprovalNamesTheChild(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 120, 30, Options{})
	typeText(m, "go")
	run(m, press(m, "enter"))
	tool := agent.ToolEvent{ID: "subagent:c1:w2", Name: "tt__send_email", Server: "tt", Agent: "mail"}
	m.Update(eventMsg{Event: agent.Event{Type: agent.EventApproval, Tool: &tool}})
	m.Update(approvalMsg{Req: ApprovalRequest{Tool: tool}})
	if f := frame(m); !strings.Contains(f, "tt · subagent mail") {
		t.Errorf("the approval does not name the subagent:\n%s", f)
	}
}

// Each subagent card folds on its own: alt+↑ selects the newest card (a
// thick border), alt+↑/↓ move to another, ctrl+o unfolds or folds the
// selected one alone; alt+↓ past the newest selects none, and ctrl+o is
// every card's again. Inline and on the alternate screen alike.
func TestSubagentCardFoldsAlone(t *testing.T) {
	t.Parallel()
	for _, alt := range []bool{false, true} {
		m, _, _ := newTestModel(t, newFakeBackend(), 140, 100, Options{AltScreen: alt})
		typeText(m, "go")
		run(m, press(m, "enter"))
		// Both children still run: both cards are live.
		for _, ev := range subagentEvents()[:11] {
			m.Update(eventMsg{Event: cleanEvent(ev)})
		}
		open := func(step string, weather, mail bool) {
			t.Helper()
			f := frame(m)
			// Only the weather card has a session line; each open card
			// has a task line.
			w := strings.Contains(f, "session s-weather")
			ml := strings.Count(f, "task:") > 1 || strings.Count(f, "task:") == 1 && !w
			if w != weather || ml != mail {
				t.Errorf("alt=%v, %s: weather card open %v (want %v), mail card open %v (want %v):\n%s", alt, step, w, weather, ml, mail, f)
			}
		}
		selected := func(step string, want int) {
			t.Helper()
			if n := strings.Count(frame(m), "┏"); n != want {
				t.Errorf("alt=%v, %s: %d cards drawn selected, want %d:\n%s", alt, step, n, want, frame(m))
			}
		}
		open("at first", false, false)
		selected("at first", 0)
		run(m, press(m, "alt+up"))
		selected("alt+up", 1)
		run(m, press(m, "ctrl+o"))
		open("ctrl+o on the newest", false, true)
		run(m, press(m, "alt+up"))
		run(m, press(m, "ctrl+o"))
		open("ctrl+o on the one before", true, true)
		run(m, press(m, "alt+down"))
		run(m, press(m, "ctrl+o"))
		open("ctrl+o on the newest again", true, false)
		run(m, press(m, "alt+down"))
		selected("alt+down past the newest", 0)
		run(m, press(m, "ctrl+o"))
		open("ctrl+o with none selected", true, true)
		run(m, press(m, "ctrl+o"))
		open("ctrl+o again with none selected", false, false)
	}
}

// Inline, a finished subagent card is printed to the scrollback as it was
// drawn, folded, and cannot be unfolded there: /subagents lists the runs
// and /subagents N prints run N's card whole (task, steps, answer,
// session) below the conversation.
func TestSubagentsCommandPrintsAFinishedCardWhole(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, rec := newInlineModel(t, b, 140, 30, Options{})
	typeText(m, "go")
	run(m, press(m, "enter"))
	for _, ev := range subagentEvents() {
		m.Update(eventMsg{Event: cleanEvent(ev)})
	}
	mail := "c2"
	m.Update(eventMsg{Event: cleanEvent(agent.Event{Type: agent.EventSubagentFinished, Subagent: &agent.SubagentEvent{ID: mail, Agent: "mail", Result: "Sent.", Requests: 2}})})
	m.Update(eventMsg{Event: cleanEvent(agent.Event{Type: agent.EventToolFinished, Tool: &agent.ToolEvent{ID: mail, Name: "run_agent", Result: "Sent.", Duration: time.Second}})})
	feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: "Both done."}, {Type: agent.EventDone}})
	out := rec.String()
	if !strings.Contains(out, "⇢ weather · subagent") || strings.Contains(out, "answer:") {
		t.Fatalf("the finished cards are not in the scrollback folded:\n%s", out)
	}
	typeText(m, "/subagents")
	run(m, press(m, "enter"))
	list := rec.String() + frame(m)
	for _, want := range []string{"1  weather  done, 3 requests  session s-weather", "2  mail  done, 2 requests"} {
		if !strings.Contains(list, want) {
			t.Errorf("/subagents lacks %q:\n%s", want, list)
		}
	}
	typeText(m, "/subagents 3")
	run(m, press(m, "enter"))
	if f := rec.String() + frame(m); !strings.Contains(f, "usage: /subagents N, N from 1 to 2") {
		t.Errorf("a wrong N:\n%s", f)
	}
	typeText(m, "/subagents 1")
	run(m, press(m, "enter"))
	run(m, m.quit())
	out = rec.String()
	at := strings.LastIndex(out, "⇢ weather · subagent")
	if at < 0 {
		t.Fatalf("no card printed:\n%s", out)
	}
	for _, want := range []string{"task:", "Weather in Berlin?", "◇ client search “weather forecast” → tt__get_weather", "⚙ tt__get_weather ✓ 12ms",
		"answer:", "Sunny in Berlin.", "session s-weather"} {
		if !strings.Contains(out[at:], want) {
			t.Errorf("/subagents 1 did not print %q whole:\n%s", want, out[at:])
		}
	}
	if strings.Contains(out[at:], "⇢ mail") {
		t.Errorf("/subagents 1 printed the other card too:\n%s", out[at:])
	}
}
