package mcp

import (
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// tail keeps the last bytes of a server's stderr for error messages.
type tail struct {
	mu   sync.Mutex
	buf  []byte
	max  int
	done chan struct{}
	once sync.Once
}

func newTail(n int) *tail { return &tail{max: n, done: make(chan struct{})} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tail) finish() { t.once.Do(func() { close(t.done) }) }

// settle waits a moment for a dying process's last stderr lines, which say
// why it died: its stdout may close a moment before they are read.
func (t *tail) settle() {
	if t == nil {
		return
	}
	select {
	case <-t.done:
	case <-time.After(500 * time.Millisecond):
	}
}

// last returns the last non-empty line written.
func (t *tail) last() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func withStderr(err error, t *tail) error {
	if l := t.last(); l != "" {
		return fmt.Errorf("%w (stderr: %s)", err, firstLine(l, 300))
	}
	return err
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}
