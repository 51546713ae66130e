package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
)

// skippingBackend records SkipCatalogWait calls.
type skippingBackend struct {
	*fakeBackend
	skipped int
}

func (s *skippingBackend) SkipCatalogWait() bool { s.skipped++; return true }

// #27: while the first request waits for servers with no cached catalog,
// the work line says "catalog: starting…" with the elapsed time; esc sends
// without them instead of cancelling the turn.
func TestCatalogWaitLine(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	sb := &skippingBackend{fakeBackend: b}
	m, turns, clk := newTestModel(t, b, 100, 24, Options{})
	m.b = sb
	typeText(m, "hi")
	run(m, press(m, "enter"))
	m.Update(eventMsg{Event: agent.Event{Type: agent.EventCatalogWait, Text: "memory, github"}})
	clk.t = clk.t.Add(3 * time.Second)
	line := ansi.Strip(m.workLine())
	for _, want := range []string{"catalog: starting… 3.0s", "memory, github", "waiting for memory, github · esc sends without them"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q missing from the work line %q", want, line)
		}
	}
	run(m, press(m, "esc"))
	if sb.skipped != 1 || turns.cancelled != 0 {
		t.Fatalf("esc: skipped %d, cancelled %d; want the wait skipped and the turn kept", sb.skipped, turns.cancelled)
	}
	m.Update(eventMsg{Event: agent.Event{Type: agent.EventCatalogReady}})
	if line := ansi.Strip(m.workLine()); strings.Contains(line, "catalog") || !strings.Contains(line, "working") {
		t.Errorf("after the wait: %q", line)
	}
	// Once the request is out, esc cancels the turn as before.
	run(m, press(m, "esc"))
	if turns.cancelled != 1 {
		t.Error("esc after the wait did not cancel the turn")
	}
}

// The catalog wait line fits an 80-column terminal: the key to go on
// without the servers is never cut, and their names take what is left,
// as many as fit and "+N more".
func TestCatalogWaitLineFits80Columns(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		names, want string
	}{
		{"memory, github", "waiting for memory, github"},
		{"fs, github, playwright, sequential-thinking", "waiting for fs +3 more"},
		{"a-server-whose-name-is-far-too-long-for-the-line", "waiting for a-server-whose…"},
		{"a-server-whose-name-is-far-too-long, memory", "waiting for 2 servers"},
	} {
		t.Run(tt.names, func(t *testing.T) {
			t.Parallel()
			m, _, clk := newTestModel(t, newFakeBackend(), 80, 24, Options{})
			typeText(m, "hi")
			run(m, press(m, "enter"))
			m.Update(eventMsg{Event: agent.Event{Type: agent.EventCatalogWait, Text: tt.names}})
			clk.t = clk.t.Add(3 * time.Second)
			line := strings.TrimRight(ansi.Strip(m.workLine()), " ")
			if w := ansi.StringWidth(line); w > 80 || !strings.HasSuffix(line, "catalog: starting… 3.0s · "+tt.want+" · esc sends without them") {
				t.Errorf("the work line at 80 columns (%d wide):\n%q\nwant it to end %q", w, line, "catalog: starting… 3.0s · "+tt.want+" · esc sends without them")
			}
			if !strings.Contains(ansi.Strip(m.View().Content), line) {
				t.Errorf("the screen does not show the work line %q", line)
			}
		})
	}
}

// #27: /export writes the conversation only, not the UI's notices,
// warnings and errors.
func TestExportConversationOnly(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 100, 30, Options{})
	typeText(m, "weather in Paris?")
	run(m, press(m, "enter"))
	feed(m, b, conversation())
	m.chat.notice(itemNotice, "a UI notice")
	m.chat.notice(itemWarning, "a UI warning")
	out := m.transcript()
	if strings.Contains(out, "a UI notice") || strings.Contains(out, "a UI warning") {
		t.Errorf("the export carries UI lines:\n%s", out)
	}
	if !strings.Contains(out, "## You\n\nweather in Paris?") || !strings.Contains(out, "## Assistant") {
		t.Errorf("the export lost the conversation:\n%s", out)
	}
}

// #27: --resume without an ID opens the session picker on start.
func TestPickSessionOnStart(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 100, 30, Options{PickSession: true})
	run(m, m.Init())
	if m.picker == nil {
		t.Fatal("no session picker on start")
	}
}

// #27: /resume opens the session picker, as /sessions does; enter on a
// row resumes that session.
func TestResumeCommandOpensPicker(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	b.history = history()
	m, _, _ := newTestModel(t, b, 120, 40, Options{})
	typeText(m, "/resume")
	run(m, press(m, "enter"))
	if m.picker == nil || len(m.picker.all) != len(b.sessions) || len(b.sessions) == 0 {
		t.Fatalf("/resume opened no session picker:\n%s", frame(m))
	}
	press(m, "down")
	run(m, press(m, "enter"))
	if m.picker != nil || !strings.Contains(frame(m), "resumed · replaying 6 messages") {
		t.Fatalf("resume from the /resume picker failed:\n%s", frame(m))
	}
}

// /sessions (and /resume) with no stored session says so instead of
// opening an empty picker (the demo lists its own sessions only, and has
// none at first).
func TestSessionsWithNoneSaysSo(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"/sessions", "/resume"} {
		t.Run(cmd, func(t *testing.T) {
			b := newFakeBackend()
			b.sessions = nil
			m, _, _ := newTestModel(t, b, 100, 30, Options{})
			typeText(m, cmd)
			run(m, press(m, "enter"))
			if m.picker != nil || !strings.Contains(frame(m), "no session to resume yet") {
				t.Fatalf("%s with no session:\n%s", cmd, frame(m))
			}
		})
	}
}

// /resume ID resumes that session, as agent --resume ID does (the line
// printed at quit names it so): the ID was ignored and the picker opened
// on every session. A prefix of one ID is enough; words that name none or
// several open the picker narrowed to them.
func TestResumeWithAnID(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		typed   string
		resumed bool
		shown   int // rows of the picker when not resumed
	}{
		{"/resume bbbbbbbb-2222", true, 0},
		{"/sessions aaaa", true, 0},
		{"/resume money", false, 1},
		{"/resume zzzz", false, 0},
		{"/resume", false, 2},
	} {
		t.Run(tt.typed, func(t *testing.T) {
			b := newFakeBackend()
			b.history = history()
			m, _, _ := newTestModel(t, b, 120, 40, Options{})
			typeText(m, tt.typed)
			run(m, press(m, "enter"))
			if resumed := strings.Contains(frame(m), "resumed · replaying 6 messages"); resumed != tt.resumed {
				t.Fatalf("resumed %v, want %v:\n%s", resumed, tt.resumed, frame(m))
			}
			if tt.resumed {
				if m.picker != nil {
					t.Error("a picker is open after the resume")
				}
				return
			}
			if m.picker == nil || len(m.picker.shown) != tt.shown {
				t.Fatalf("picker %+v, want %d rows shown", m.picker, tt.shown)
			}
		})
	}
}
