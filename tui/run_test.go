package tui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// syncBuffer is the program's output, read while it is written.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	ch chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.ch <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ansi.Strip(s.b.String())
}

// TestRunDrivesATurn runs the real program (renderer, bridge goroutine,
// event loop) on pipes: typing a prompt reaches the backend and its answer
// reaches the screen.
func TestRunDrivesATurn(t *testing.T) {
	b := newFakeBackend()
	b.script = conversation()
	in, inW := io.Pipe()
	out := &syncBuffer{ch: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, b, Options{AltScreen: true, Theme: "dark", Width: 120, Height: 40, Input: in, Output: out})
	}()
	waitOut := func(want string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for !strings.Contains(out.String(), want) {
			select {
			case <-out.ch:
			case <-deadline:
				t.Fatalf("output never showed %q", want)
			}
		}
	}
	waitOut("Discovered tools")
	if _, err := inW.Write([]byte("weather in Paris?\r")); err != nil {
		t.Fatal(err)
	}
	waitOut("weather_forecast")
	waitOut("Paris, next 3 days")
	b.mu.Lock()
	sent := append([]string(nil), b.sent...)
	b.mu.Unlock()
	if len(sent) != 1 || sent[0] != "weather in Paris?" {
		t.Fatalf("backend got %q", sent)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	_ = inW.Close()
}
