package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// words is a paragraph of n distinct words, w001 w002 …: a copy of any
// part of it left on the terminal shows as a word counted twice.
func words(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("w%03d", i+1)
	}
	return strings.Join(ws, " ")
}

// heldAnswer scripts the fake to stream a long paragraph and hold the
// stream before its closing line until release is called.
func heldAnswer(t *testing.T, fake *anthropictest.Server, paragraph string) (release func()) {
	hold := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(hold) }) }
	t.Cleanup(release)
	fake.Enqueue(anthropictest.Reply{Content: []json.RawMessage{anthropictest.Text(paragraph), anthropictest.Text("\n\nAll done.")},
		Hold: hold, HoldBefore: 1})
	return release
}

// #27: when a tall live area (a long answer streaming) shrinks to the
// input, no blank rows stay under the input.
func TestNoBlankRowsUnderInputInTmux(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	const n = 600
	release := heldAnswer(t, fake, words(n))
	ts := startTmuxSize(t, 100, 30, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"))
	ts.waitFor("/help")
	ts.send("Go", "Enter")
	ts.waitFor(fmt.Sprintf("w%03d", n))
	release()
	ts.waitFor("All done.")
	ts.waitFilled(30, "All done.")
}

// #27: closing a tall picker on a full screen leaves no blank rows under
// the input, also where the picker is taller than a streaming frame (the
// live area is at most half the screen; the inline picker up to 16 rows).
func TestPickerCloseLeavesNoBlankRowsInTmux(t *testing.T) {
	isolate(t)
	for _, height := range []int{30, 24, 20} {
		t.Run(fmt.Sprint(height), func(t *testing.T) {
			fake := anthropictest.NewServer(t)
			fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: words(600) + "\n\nAll done."}))
			ts := startTmuxSize(t, 100, height, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"))
			ts.waitFor("/help")
			ts.send("Go", "Enter")
			ts.waitFor("All done.")
			ts.send("/model", "Enter")
			ts.waitFor("Switch model")
			ts.send("Escape")
			ts.waitFilled(height, "/help for commands")
		})
	}
}

// waitFilled waits until a screen of height rows, showing want and the
// status bar, has its last row in use: the live area sits on the bottom
// with no blank rows under it. A printed batch follows its frame by a
// frame (inline.go, printDelay), so the state is polled, not sampled.
func (ts *tmuxSession) waitFilled(height int, want string) {
	ts.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		screen = ts.capture()
		rows := strings.Split(strings.TrimRight(screen, "\n"), "\n")
		if len(rows) == height && strings.Contains(screen, want) && statusLine(screen) != "" && !strings.Contains(screen, "Switch model") {
			return
		}
		<-time.After(50 * time.Millisecond)
	}
	rows := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	ts.t.Errorf("%d blank rows under the input:\n%s", height-len(rows), screen)
}
