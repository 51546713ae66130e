package tui

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var epoch = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// clock is a settable clock so elapsed times in frames are fixed.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

// newTestModel builds a full-screen model (--alt-screen), the layout most
// tests look at; newInlineModel builds the default inline one.
func newTestModel(t testing.TB, b *fakeBackend, w, h int, opts Options) (*Model, *fakeTurns, *clock) {
	t.Helper()
	opts.AltScreen = true
	return newModel(t, b, w, h, opts)
}

// scrollbackRecorder is the terminal's scrollback in inline tests.
type scrollbackRecorder struct {
	lines  []string
	clears int // how many times the terminal was cleared
	// held and released count prints that start and end synchronized
	// output (DEC mode 2026).
	held, released int
}

func (r *scrollbackRecorder) String() string {
	out := make([]string, len(r.lines))
	for i, l := range r.lines {
		out[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	return strings.Join(out, "\n")
}

func newInlineModel(t testing.TB, b *fakeBackend, w, h int, opts Options) (*Model, *fakeTurns, *scrollbackRecorder) {
	t.Helper()
	opts.AltScreen = false
	m, turns, _ := newModel(t, b, w, h, opts)
	rec := &scrollbackRecorder{}
	m.ready = true
	m.print = func(text string) tea.Cmd {
		if t, ok := strings.CutPrefix(text, ansi.SetModeSynchronizedOutput); ok {
			rec.held, text = rec.held+1, t
		}
		if t, ok := strings.CutSuffix(text, ansi.ResetModeSynchronizedOutput); ok {
			rec.released, text = rec.released+1, t
		}
		// Like the terminal, a clear wipes the scrollback.
		if t, ok := strings.CutPrefix(text, clearAll); ok {
			rec.lines, text = nil, t
			rec.clears++
		}
		rec.lines = append(rec.lines, strings.Split(text, "\n")...)
		return nil
	}
	return m, turns, rec
}

func newModel(t testing.TB, b *fakeBackend, w, h int, opts Options) (*Model, *fakeTurns, *clock) {
	t.Helper()
	c := &clock{t: epoch}
	opts.Width, opts.Height = w, h
	opts.Now = c.Now
	opts.RefreshEvery = time.Millisecond
	if opts.ApprovalGuard == 0 {
		opts.ApprovalGuard = -1 // answers at once; TestApprovalIgnoresTypeAhead has the guard
	}
	if opts.Theme == "" {
		opts.Theme = "dark"
	}
	m, err := New(b, opts)
	if err != nil {
		t.Fatal(err)
	}
	turns := &fakeTurns{}
	m.turns = turns
	m.Update(infoMsg(b.Info()))
	return m, turns, c
}

// feed delivers events the way the bridge does, describing search results.
func feed(m *Model, b *fakeBackend, evs []agent.Event) {
	br := &bridge{b: b}
	for _, e := range evs {
		// The backend is busy while a turn's events flow, until done: a
		// session change meanwhile is refused as the real one refuses it.
		b.mu.Lock()
		b.busy = e.Type != agent.EventDone
		b.mu.Unlock()
		m.Update(br.message(e))
	}
	m.Update(flushMsg{})
}

func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func press(m *Model, k string) tea.Cmd {
	var msg tea.KeyPressMsg
	switch k {
	case "enter":
		msg = tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		msg = tea.KeyPressMsg{Code: tea.KeyEscape}
	case "ctrl+c":
		msg = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+t":
		msg = tea.KeyPressMsg{Code: 't', Mod: tea.ModCtrl}
	case "ctrl+o":
		msg = tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	case "alt+up":
		msg = tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModAlt}
	case "alt+down":
		msg = tea.KeyPressMsg{Code: tea.KeyDown, Mod: tea.ModAlt}
	case "up":
		msg = tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		msg = tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgup":
		msg = tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		msg = tea.KeyPressMsg{Code: tea.KeyPgDown}
	default:
		r := []rune(k)[0]
		msg = tea.KeyPressMsg{Code: r, Text: k}
	}
	_, cmd := m.Update(msg)
	return cmd
}

// run executes a command and feeds what it returns back, like the runtime
// would. Depth is bounded: cursor blinking would otherwise loop forever.
func run(m *Model, cmd tea.Cmd) { runDepth(m, cmd, 0) }

func runDepth(m *Model, cmd tea.Cmd, depth int) {
	if cmd == nil || depth > 3 {
		return
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			runDepth(m, c, depth+1)
		}
		return
	}
	switch msg.(type) {
	case nil, flushMsg, tea.QuitMsg, spinner.TickMsg:
		// Timers and quitting are the runtime's business.
		return
	}
	_, next := m.Update(msg)
	runDepth(m, next, depth+1)
}

func frame(m *Model) string {
	v := m.View()
	lines := strings.Split(ansi.Strip(v.Content), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if string(want) != got {
		t.Errorf("frame %s differs from %s (run with -update to accept)\n--- got ---\n%s--- want ---\n%s", name, path, got, want)
	}
}
