package tui

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// titled is a frame as the renderer writes it: its rows, with the window
// title when it changed.
func titled(title string) []byte {
	return []byte(ansi.SetModeSynchronizedOutput + ansi.SetWindowTitle(title) + "\r\x1b[2Aa row\r\nthe input" + ansi.ResetModeSynchronizedOutput)
}

// A batch of finished lines is printed above the frame only once the
// frame they left is on the terminal: printed above the taller frame
// before it, they leave blank rows under the input or, with a frame
// taller than the rest of the screen, push its top off it (the picker's
// title lost, the box drawn twice). Until then no frame is taller than
// the room they leave it, even one that grew meanwhile (/model typed as
// the answer was being printed).
func TestInlinePrintWaitsForItsFrame(t *testing.T) {
	t.Parallel()
	const height = 24
	tests := []struct {
		name   string
		writes []string // window titles of the frames written after the print is due
		want   bool     // the lines are printed
	}{
		{"the smaller frame is written", []string{"agent "}, true},
		{"older frames, then the smaller one", []string{"agent", "agent", "agent "}, true},
		{"only older frames", []string{"agent", "agent"}, false},
		{"nothing written", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newFakeBackend()
			m, _, _ := newInlineModel(t, b, 100, height, Options{})
			m.print = nil
			m.fence = newFrameFence()
			var term bytes.Buffer
			out := m.fence.watch(&term)
			write := func(title string) {
				if _, err := out.Write(titled(title)); err != nil {
					t.Fatal(err)
				}
			}
			write(m.View().WindowTitle) // the first frame
			for i := range 8 {
				m.queue = append(m.queue, fmt.Sprintf("line %d", i))
			}
			print := m.printCmd()
			if print == nil || m.inflight == 0 {
				t.Fatalf("no print of %d queued lines", len(m.queue))
			}
			n := m.inflight
			if got := m.View().WindowTitle; got != titles[1] {
				t.Fatalf("the frame the lines left is titled %q, as the frames before it", got)
			}
			// /model typed while the lines are on their way: the picker
			// (21 rows at 24) shows its bottom only, room left for them.
			typeText(m, "/model")
			run(m, press(m, "enter"))
			if rows := strings.Count(frame(m), "\n"); rows > height-1-n {
				t.Errorf("a frame of %d rows while %d lines are printed above it on %d rows:\n%s", rows, n, height, frame(m))
			}
			for _, title := range tt.writes {
				write(title)
			}
			m.fence.stop() // the program ends: a print still waiting gives up
			msg := print()
			if got, ok := msg.(printNowMsg); ok != tt.want || ok && got.text != strings.Join([]string{"line 0", "line 1", "line 2", "line 3", "line 4"}[:n], "\n") {
				t.Fatalf("printed %v (%#v), want %v", ok, msg, tt.want)
			}
			// The rest follows in a batch that leaves the picker whole.
			m.Update(printedMsg{})
			f := frame(m)
			if !strings.Contains(f, "Switch model") {
				t.Errorf("the picker is not whole once the lines are printed:\n%s", f)
			}
			if rows := strings.Count(f, "\n"); rows+m.inflight > height-1 {
				t.Errorf("%d lines printed above a frame of %d rows on %d rows", m.inflight, rows, height)
			}
		})
	}
}

// The fence reads the last title in the bytes written to the terminal.
func TestFrameFenceReadsTitles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		write string
		want  string
	}{
		{"no title", "\x1b[Hrows", ""},
		{"a title", "rows" + ansi.SetWindowTitle("agent ") + "more", "agent "},
		{"the last of two", ansi.SetWindowTitle("agent") + ansi.SetWindowTitle("agent "), "agent "},
		{"cut short", "\x1b]2;agent", ""},
	}
	for _, tt := range tests {
		f := newFrameFence()
		if _, err := f.watch(&bytes.Buffer{}).Write([]byte(tt.write)); err != nil {
			t.Fatal(err)
		}
		if f.title != tt.want {
			t.Errorf("%s: title %q, want %q", tt.name, f.title, tt.want)
		}
	}
	// A terminal stays one: the program sizes it and sets raw mode on it.
	file, ok := newFrameFence().watch(os.Stdout).(interface {
		io.ReadWriteCloser
		Fd() uintptr
	})
	if !ok || file.Fd() != os.Stdout.Fd() {
		t.Errorf("the watched terminal is no longer a file (%v)", ok)
	}
}

// Quitting while a batch waits for its frame prints that batch with the
// rest, before it and once: the program ends with the print still waiting
// (the waiting print then gives up) or the print comes after the quit
// printed everything (it is then not printed again).
func TestQuitPrintsTheBatchInFlight(t *testing.T) {
	t.Parallel()
	for _, late := range []bool{false, true} {
		b := newFakeBackend()
		m, _, rec := newInlineModel(t, b, 100, 24, Options{})
		record := m.print
		m.print = nil
		m.fence = newFrameFence()
		var want []string
		for i := range 30 {
			want = append(want, fmt.Sprintf("line %d", i))
		}
		m.queue = append(m.queue, want...)
		print := m.printCmd()
		if print == nil || m.inflight == 0 || m.inflight == len(want) {
			t.Fatalf("no batch of %d queued lines in flight (%d)", len(want), m.inflight)
		}
		m.print = record
		run(m, m.quit())
		if late {
			// The frame was written just before the program ended.
			if _, err := m.fence.watch(io.Discard).Write(titled(m.View().WindowTitle)); err != nil {
				t.Fatal(err)
			}
			if msg := print(); msg != nil {
				if _, cmd := m.Update(msg); cmd != nil {
					t.Errorf("late=%v: the batch in flight is printed again after the quit printed it", late)
				}
			}
		}
		m.fence.stop()
		got := strings.Join(rec.lines, "\n")
		if !strings.Contains(got, strings.Join(want, "\n")) {
			t.Errorf("late=%v: printed on quit:\n%s\nwant all %d lines in order", late, got, len(want))
		}
	}
}
