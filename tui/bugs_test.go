package tui

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// #18 bug 1: after a resume, a new turn that reuses the history's call ids
// (the demo and many local servers number them per process) gets its own
// search line and tool card; nothing merges into the old ones.
func TestResumedIDsRepeatInANewTurn(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 120, 40, Options{History: history()})
	typeText(m, "and again?")
	run(m, press(m, "enter"))
	feed(m, b, conversation())
	var cards, searches int
	for _, it := range m.chat.items {
		switch it.kind {
		case itemTool:
			cards++
		case itemSearch:
			searches++
		}
	}
	if cards != 2 || searches != 2 {
		t.Fatalf("cards %d, searches %d in the chat; want 2 and 2 (one per turn)", cards, searches)
	}
	if len(m.pane.searches) != 2 {
		t.Fatalf("pane has %d searches, want 2", len(m.pane.searches))
	}
	f := frame(m)
	if strings.Contains(f, "×2") {
		t.Errorf("the pane merged the two turns' calls:\n%s", f)
	}
	if strings.Count(f, "weather forecast paris") < 2 {
		t.Errorf("the new turn's search is hidden:\n%s", f)
	}
}

// #18 bug 4: /clear while an answer streams keeps the streamed item whole,
// so the Markdown after the clear is not restarted mid-block.
func TestClearDuringStreamKeepsTheAnswerWhole(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 80, 24, Options{})
	typeText(m, "code?")
	run(m, press(m, "enter"))
	feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: "Here:\n\n```go\nfunc a() {\n"}})
	typeText(m, "/clear")
	run(m, press(m, "enter"))
	feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: "x := 1\ny := 2\n}\n```\n"}})
	f := frame(m)
	for _, l := range strings.Split(f, "\n") {
		if strings.Contains(l, "x := 1") && strings.Contains(l, "y := 2") {
			t.Fatalf("the code after /clear ran together:\n%s", f)
		}
	}
	if !strings.Contains(f, "func a() {") || strings.Contains(f, "› you") {
		t.Fatalf("/clear should drop the prompt and keep the streaming answer:\n%s", f)
	}
}

// /search results are matched by the search's id: two searches for the
// same text each get their own result.
func TestManualSearchesKeyedByID(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 120, 40, Options{})
	typeText(m, "/search weather")
	first := press(m, "enter")
	typeText(m, "/search weather")
	second := press(m, "enter")
	run(m, second)
	if s := m.pane.searches; len(s) != 2 || !s[0].Running || s[1].Running {
		t.Fatalf("the second result went to the wrong search: %+v %+v", s[0], s[1])
	}
	run(m, first)
	if s := m.pane.searches; s[0].Running {
		t.Fatal("the first search never finished")
	}
}
