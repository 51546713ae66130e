package cmd

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"go.uber.org/goleak"

	"github.com/agent-dev/agent/app/tuiapp"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	"github.com/agent-dev/agent/tui"
)

// screen is a TUI's output, read while the program writes it.
type screen struct {
	mu sync.Mutex
	b  bytes.Buffer
	ch chan struct{}
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.ch <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ansi.Strip(s.b.String())
}

// settle, called first in a test, checks last (after the app and the fakes
// are closed) that the test left no goroutine: the TUI program's timers
// (cursor blink, ticks) end within a second of it, so it waits for them
// rather than leave them to the package's leak check. Each Find waits
// about 0.4 s before it reports.
func settle(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		err := goleak.Find(before)
		for deadline := time.Now().Add(5 * time.Second); err != nil && time.Now().Before(deadline); {
			err = goleak.Find(before)
		}
		if err != nil {
			t.Errorf("goroutines left: %v", err)
		}
	})
}

// runTUIOn runs the real TUI program over b on pipes; type writes keys,
// wait waits for text on the screen. The program stops with the test.
func runTUIOn(t *testing.T, b *tuiapp.Backend) (typeKeys func(string), wait func(string)) {
	t.Helper()
	in, inW := io.Pipe()
	out := &screen{ch: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- tui.Run(ctx, b, tui.Options{AltScreen: true, Theme: "dark", Width: 140, Height: 40, Input: in, Output: out,
			// Short timers: none is left running when the test ends (goleak).
			RenderEvery: 10 * time.Millisecond, RefreshEvery: 20 * time.Millisecond})
	}()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the TUI did not stop")
		}
	})
	typeKeys = func(s string) {
		t.Helper()
		if _, err := inW.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	wait = func(want string) {
		t.Helper()
		// screenWait, as the terminal tests: the program is on this
		// process's share of the cores, and at load 20 a run of the
		// image test took from 1 s to over 15 s (about 0.7 s of CPU
		// under -race), its frames seconds apart, none lost.
		deadline := time.After(screenWait)
		for !strings.Contains(out.text(), want) {
			select {
			case <-out.ch:
			case <-deadline:
				t.Fatalf("the screen never showed %q:\n%s", want, out.text())
			}
		}
	}
	return typeKeys, wait
}

// The images part's "done when" through the TUI: @dot.png in a prompt
// reaches the model's request as an image block, after the prompt's text,
// and the chat shows its chip (name, type, size).
func TestTUIAtImageReachesTheModel(t *testing.T) {
	settle(t)
	wd := isolate(t)
	_, data := writeImage(t, wd, "dot.png")
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "A black dot."}))
	b := newTestTUIBackend(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey},
		"--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"))
	typeKeys, wait := runTUIOn(t, b)
	wait("Ask anything")
	typeKeys("what is @dot.png?\r")
	wait("A black dot.")
	wait("▣ dot.png (png, ")
	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	want := `{"type":"text","text":"what is @dot.png?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + data + `"}`
	if !bytes.Contains(reqs[0].Body, []byte(want)) {
		t.Errorf("request lacks %s:\n%.600s", want, reqs[0].Body)
	}
}

// A model that reads no images refuses in one line naming it and sends
// nothing (tui's tests check the prompt goes back into the input); a
// pasted image path becomes an @reference in the input.
func TestTUIImageRefusedKeepsThePrompt(t *testing.T) {
	settle(t)
	wd := isolate(t)
	path, _ := writeImage(t, wd, "my shot.png")
	fake := chattest.NewServer(t)
	fake.Script(chattest.Text("never"))
	b := newTestTUIBackend(t, map[string]string{"OPENAI_API_KEY": "k"},
		"--provider", "openai-chat", "--base-url", fake.URL+"/v1", "--model", "o3-mini", "--db", filepath.Join(t.TempDir(), "a.db"))
	typeKeys, wait := runTUIOn(t, b)
	wait("Ask anything")
	// A terminal pastes a dropped file as its path, spaces escaped.
	typeKeys("\x1b[200~" + strings.ReplaceAll(path, " ", `\ `) + "\x1b[201~")
	wait(`@"` + path + `"`)
	typeKeys("describe it\r")
	wait("o3-mini takes no images, so the image was not sent")
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
