package tui

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// Inline (the default): finished items go to the scrollback in order; the
// live area keeps only what still changes; quitting prints the rest, so
// the whole conversation stays in the terminal.
func TestInlinePrintsFinishedItemsToScrollback(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, rec := newInlineModel(t, b, 80, 24, Options{})
	if v := m.View(); v.AltScreen || v.MouseMode != 0 {
		t.Fatalf("inline view asks for the alternate screen or the mouse: %+v", v)
	}
	typeText(m, "weather in Paris?")
	run(m, press(m, "enter"))
	evs := conversation()
	feed(m, b, evs[:5]) // up to the search start
	live := frame(m)
	if !strings.Contains(live, "searching") {
		t.Errorf("the running search is not in the live area:\n%s", live)
	}
	if !strings.Contains(rec.String(), "weather in Paris?") || !strings.Contains(rec.String(), "Let me find a weather tool.") {
		t.Errorf("finished items not printed:\n%s", rec.String())
	}
	feed(m, b, evs[5:])
	run(m, m.quit())
	out := rec.String()
	order := []string{"› you", "weather in Paris?", "Let me find a weather tool.", "weather forecast paris", "weather_forecast", "Paris, next 3 days", "umbrella"}
	at := 0
	for _, w := range order {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("scrollback lacks %q after position %d:\n%s", w, at, out)
		}
		at += i
	}
	if strings.Count(out, "Let me find a weather tool.") != 1 {
		t.Errorf("an item was printed twice:\n%s", out)
	}
	if f := frame(m); strings.TrimSpace(f) != "" {
		t.Errorf("the live area is not cleared on quit:\n%s", f)
	}
}

// A streamed answer taller than the screen: its head goes to the
// scrollback as it streams, and nothing is lost or repeated.
func TestInlineLongAnswerStreamsIntoScrollback(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, rec := newInlineModel(t, b, 60, 12, Options{})
	typeText(m, "count")
	run(m, press(m, "enter"))
	var text strings.Builder
	for i := range 40 {
		text.WriteString("line " + string(rune('A'+i%26)) + string(rune('a'+i/26)) + "\n\n")
		feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: "line " + string(rune('A'+i%26)) + string(rune('a'+i/26)) + "\n\n"}})
	}
	msg := agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart(text.String())}}
	feed(m, b, []agent.Event{{Type: agent.EventMessage, Message: &msg}, {Type: agent.EventDone}})
	run(m, m.quit())
	out := rec.String()
	for i := range 40 {
		w := "line " + string(rune('A'+i%26)) + string(rune('a'+i/26))
		if strings.Count(out, w+"\n") != 1 {
			t.Fatalf("%q printed %d times:\n%s", w, strings.Count(out, w+"\n"), out)
		}
	}
}

// Inline at any size, with or without colour: no panic, and the redrawn
// area never reaches the terminal's height.
func TestInlineTinyTerminals(t *testing.T) {
	t.Parallel()
	for _, sz := range [][2]int{{1, 1}, {5, 3}, {20, 6}, {40, 12}} {
		for _, noColor := range []bool{false, true} {
			b := newFakeBackend()
			m, _, _ := newInlineModel(t, b, sz[0], sz[1], Options{NoColor: noColor, History: history()})
			typeText(m, "hi")
			run(m, press(m, "enter"))
			feed(m, b, conversation())
			if n := strings.Count(frame(m), "\n"); sz[1] > 3 && n > sz[1] {
				t.Errorf("%dx%d: the redrawn area has %d lines", sz[0], sz[1], n)
			}
			run(m, m.quit())
		}
	}
}
