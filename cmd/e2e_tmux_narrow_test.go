package cmd

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// repeated lists the paragraph's words the transcript holds more than once.
func repeated(h string, n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		w := fmt.Sprintf("w%03d", i)
		if c := strings.Count(h, w); c != 1 {
			out = append(out, fmt.Sprintf("%s×%d", w, c))
		}
	}
	return out
}

// inParagraphs is words(n) cut into paragraphs of per words: an answer
// taller than the live area, whose head is printed while it streams.
func inParagraphs(n, per int) string {
	ws := strings.Fields(words(n))
	var ps []string
	for i := 0; i < n; i += per {
		ps = append(ps, strings.Join(ws[i:min(i+per, n)], " "))
	}
	return strings.Join(ps, "\n\n")
}

// #27: narrowing (then widening) the terminal while an answer streams
// leaves no cut copy of it in the scrollback: the transcript is printed
// again at the new width. The earlier turn, the head of the answer already
// printed and its live tail are each there once, the stream goes on, and
// the draft in the input stays.
func TestNarrowWhileStreamingInTmux(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.Enqueue(anthropictest.Reply{Content: []json.RawMessage{anthropictest.Text("First answer.")}})
	const n = 200
	release := heldAnswer(t, fake, inParagraphs(n, 25))
	ts := startTmuxSize(t, 100, 30, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"))
	ts.waitFor("/help")
	ts.send("Hi", "Enter")
	ts.waitFor("First answer.")
	ts.send("Go", "Enter")
	ts.waitFor(fmt.Sprintf("w%03d", n))
	ts.send("my draft")
	ts.waitFor("my draft")
	resize := func(w int) {
		t.Helper()
		if out, err := exec.Command("tmux", "-L", ts.socket, "resize-window", "-x", fmt.Sprint(w)).CombinedOutput(); err != nil {
			t.Fatalf("resize: %v: %s", err, out)
		}
	}
	// The transcript is printed again a moment after the width settles,
	// and printed items follow their frame by a frame: poll.
	settled := func(want string) string {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		h := ts.history()
		for (len(repeated(h, n)) > 0 || strings.Count(h, "First answer.") != 1 || !strings.Contains(h, want)) && time.Now().Before(deadline) {
			<-time.After(50 * time.Millisecond)
			h = ts.history()
		}
		if r := repeated(h, n); len(r) > 0 || strings.Count(h, "First answer.") != 1 {
			t.Errorf("words not exactly once in the transcript: %v\n%s", r, h)
		}
		return h
	}
	resize(60)
	settled(fmt.Sprintf("w%03d", n))
	if s := ts.capture(); !strings.Contains(s, "my draft") {
		t.Errorf("the draft left the input:\n%s", s)
	}
	release()
	ts.waitFor("All done.")
	settled("All done.")
	resize(100)
	settled("All done.")
	ts.waitFor("my draft")
}

// A draft longer than a row shows whole, from its first word, when typed
// in a 60-column terminal (the textarea wraps at word boundaries, a row
// later than a count of cells) and after the terminal narrows and widens
// again: its first row was scrolled out of a box one row short.
func TestLongDraftShowsWholeAfterResizeInTmux(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	ts := startTmuxSize(t, 60, 30, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"))
	ts.waitFor("/help")
	ts.send("-l", "this is a long draft that the user is typing and it should wrap across lines in the narrow terminal without loss")
	ts.waitFor("this is a long draft", "without", "loss")
	for _, w := range []int{100, 60, 40, 80} {
		if out, err := exec.Command("tmux", "-L", ts.socket, "resize-window", "-x", fmt.Sprint(w)).CombinedOutput(); err != nil {
			t.Fatalf("resize: %v: %s", err, out)
		}
		ts.waitFor("this is a long", "loss")
	}
	ts.quit()
}
