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

// stderrLines is how many of a server's last stderr lines errors quote.
const stderrLines = 3

// last returns the last non-empty lines written (up to stderrLines),
// joined with " | ".
func (t *tail) last() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(string(t.buf)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			keep = append(keep, firstLine(l, 200))
		}
	}
	if len(keep) > stderrLines {
		keep = keep[len(keep)-stderrLines:]
	}
	return strings.Join(keep, " | ")
}

func withStderr(err error, t *tail) error {
	if l := t.last(); l != "" {
		return fmt.Errorf("%w (stderr: %s)", err, l)
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
