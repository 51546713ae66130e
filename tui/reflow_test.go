package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
)

// paragraphs is n paragraphs of words distinct across all of them (p1w01
// p1w02 …), so a line printed twice shows as a word counted twice.
func paragraphs(from, n, words int) []string {
	var ps []string
	for p := from; p < from+n; p++ {
		ws := make([]string, words)
		for i := range ws {
			ws[i] = fmt.Sprintf("p%dw%02d", p, i+1)
		}
		ps = append(ps, strings.Join(ws, " "))
	}
	return ps
}

func answer(text string) []agent.Event {
	msg := agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart(text)}}
	return []agent.Event{{Type: agent.EventTextDelta, Text: text}, {Type: agent.EventMessage, Message: &msg}, {Type: agent.EventDone}}
}

// #27: narrowing the terminal while an answer streams prints the
// transcript again at the new width, once the width settled: a finished
// turn, the head of the streaming answer already in the scrollback, each
// once; the answer then goes on streaming and the draft in the input stays.
func TestInlineNarrowPrintsTranscriptAgain(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, rec := newInlineModel(t, b, 100, 30, Options{})
	typeText(m, "first question")
	run(m, press(m, "enter"))
	// Taller than the live area: its head is printed while it streams.
	feed(m, b, answer(strings.Join(paragraphs(1, 6, 50), "\n\n")))
	typeText(m, "second question")
	run(m, press(m, "enter"))
	streamed := paragraphs(7, 6, 50)
	feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: strings.Join(streamed[:4], "\n\n") + "\n\n"}})
	if !strings.Contains(rec.String(), "p7w01") {
		t.Fatalf("the streaming answer's head is not in the scrollback before the resize:\n%s", rec.String())
	}
	typeText(m, "my draft")

	// A drag: two width changes; only the last one's wait counts.
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	first := m.reflowGen
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 30})
	m.Update(reflowMsg{first})
	// What streams meanwhile waits for the reprint.
	feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: streamed[4] + "\n\n"}})
	if rec.clears != 0 || len(m.queue) == 0 {
		t.Fatalf("reprinted before the width settled, or nothing queued (%d lines)", len(m.queue))
	}
	m.Update(reflowMsg{m.reflowGen})
	if rec.clears != 1 {
		t.Fatalf("the terminal was cleared %d times after the width settled, want 1", rec.clears)
	}
	out := rec.String()
	for _, l := range rec.lines {
		if w := ansi.StringWidth(l); w > 60 {
			t.Errorf("a reprinted line is %d cells wide at 60 columns: %q", w, ansi.Strip(l))
		}
	}
	for _, w := range []string{"first question", "second question", "p1w01", "p6w50", "p7w01", "p8w50", "p9w50"} {
		if c := strings.Count(out, w); c != 1 {
			t.Errorf("%q is %d times in the reprinted scrollback:\n%s", w, c, out)
		}
	}
	if !strings.Contains(frame(m), "my draft") {
		t.Errorf("the draft is gone from the input:\n%s", frame(m))
	}

	// The answer goes on streaming and ends; quitting prints the rest.
	full := strings.Join(streamed, "\n\n")
	feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: streamed[5]}})
	msg := agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart(full)}}
	feed(m, b, []agent.Event{{Type: agent.EventMessage, Message: &msg}, {Type: agent.EventDone}})
	run(m, m.quit())
	out = rec.String()
	for p := 1; p <= 12; p++ {
		for i := 1; i <= 50; i++ {
			if w := fmt.Sprintf("p%dw%02d", p, i); strings.Count(out, w) != 1 {
				t.Fatalf("%q is %d times in the scrollback:\n%s", w, strings.Count(out, w), out)
			}
		}
	}
}

// A width change and a quit before the reprint: the transcript is printed
// whole at the new width on the way out, not the old width's leftovers.
func TestInlineQuitBeforeReflowPrintsAll(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, rec := newInlineModel(t, b, 100, 30, Options{})
	typeText(m, "question")
	run(m, press(m, "enter"))
	feed(m, b, answer(strings.Join(paragraphs(1, 3, 50), "\n\n")))
	m.Update(tea.WindowSizeMsg{Width: 50, Height: 30})
	run(m, m.quit())
	out := rec.String()
	if rec.clears != 1 || strings.Count(out, "question") != 1 || strings.Count(out, "p3w50") != 1 {
		t.Errorf("cleared %d times; transcript:\n%s", rec.clears, out)
	}
}

// On a terminal that answered that it has synchronized output (DEC mode
// 2026), the reprint after a width change starts the mode: the display is
// held from the clear until the renderer's next frame, which it wraps in
// the same mode, so the transcript does not scroll past an empty input
// area; a reprint on the way out, with no frame after it, ends it itself.
// A terminal that did not answer gets neither sequence.
func TestInlineReflowHeldWithSynchronizedOutput(t *testing.T) {
	t.Parallel()
	for _, answered := range []bool{true, false} {
		b := newFakeBackend()
		m, _, rec := newInlineModel(t, b, 100, 30, Options{})
		if answered {
			m.Update(tea.ModeReportMsg{Mode: ansi.ModeSynchronizedOutput, Value: ansi.ModeReset})
		}
		typeText(m, "question")
		run(m, press(m, "enter"))
		feed(m, b, answer(strings.Join(paragraphs(1, 3, 50), "\n\n")))
		m.Update(tea.WindowSizeMsg{Width: 60, Height: 30})
		m.Update(reflowMsg{m.reflowGen})
		want := 0
		if answered {
			want = 1
		}
		if rec.clears != 1 || rec.held != want || rec.released != 0 {
			t.Errorf("answered %v, width change: cleared %d, held %d, released %d; want 1, %d, 0", answered, rec.clears, rec.held, rec.released, want)
		}
		m.Update(tea.WindowSizeMsg{Width: 50, Height: 30})
		run(m, m.quit())
		if rec.clears != 2 || rec.held != 2*want || rec.released != want {
			t.Errorf("answered %v, quit before the reprint: cleared %d, held %d, released %d; want 2, %d, %d", answered, rec.clears, rec.held, rec.released, 2*want, want)
		}
		if out := rec.String(); strings.Count(out, "question") != 1 || strings.Count(out, "p3w50") != 1 {
			t.Errorf("answered %v: transcript:\n%s", answered, out)
		}
	}
}

// A height change alone rewraps nothing: no reprint.
func TestInlineHeightChangeKeepsScrollback(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, rec := newInlineModel(t, b, 100, 30, Options{})
	typeText(m, "question")
	run(m, press(m, "enter"))
	feed(m, b, answer("an answer"))
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
	m.Update(reflowMsg{m.reflowGen})
	if rec.clears != 0 || m.reflowWait || m.reflowDue {
		t.Errorf("a height change cleared the terminal (%d) or waits to", rec.clears)
	}
}

// #27: in inline mode a frame taller than a streaming one (the model
// picker, up to 16 rows, on a screen whose live area is half of it) does
// not shrink when it closes: the rows it gave up would stay blank under
// the input. They stay above it, until printed lines take them.
func TestInlineTallPickerCloseKeepsFrameHeight(t *testing.T) {
	t.Parallel()
	for _, h := range []int{30, 24, 20} {
		b := newFakeBackend()
		m, _, _ := newInlineModel(t, b, 100, h, Options{})
		typeText(m, "go")
		run(m, press(m, "enter"))
		feed(m, b, answer(strings.Join(paragraphs(1, 8, 50), "\n\n")))
		typeText(m, "/model")
		run(m, press(m, "enter"))
		open := frame(m)
		if !strings.Contains(open, "Switch model") {
			t.Fatalf("%d rows: no picker:\n%s", h, open)
		}
		run(m, press(m, "esc"))
		closed := frame(m)
		if strings.Contains(closed, "Switch model") {
			t.Fatalf("%d rows: the picker did not close:\n%s", h, closed)
		}
		if a, b := strings.Count(open, "\n"), strings.Count(closed, "\n"); b < a {
			t.Errorf("%d rows: the frame shrank from %d to %d rows when the picker closed:\n%s", h, a, b, closed)
		}
	}
}
