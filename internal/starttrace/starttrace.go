// Package starttrace writes a timeline of one run: where the time from
// exec to exit goes (package init, config, the database, each MCP
// server's connect, initialize and tools/list, the catalog cache writes,
// the requests, the answer, the store's commit, the exit). It is on only
// when AGENT_TRACE_START names a file; then each Mark notes the time and
// the run's end (Write, from main) writes one line per mark:
//
//	UNIX_NS MS_SINCE_INIT LABEL
//
// Unset, Mark is one atomic load: nothing else runs on the hot path. The
// absolute times let a caller that noted when it started the process (the
// start bench's wrapper) place the marks from exec on.
//
// It imports only what the runtime initialises first, so its init (the
// first mark) runs before the heavy packages' inits, which the linker
// orders after it (see internal/early for the rule).
package starttrace

import (
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Env names the file the timeline goes to.
const Env = "AGENT_TRACE_START"

type mark struct {
	at   time.Time
	what string
}

var (
	on    atomic.Bool
	path  string
	mu    sync.Mutex
	marks []mark
)

func init() {
	path = os.Getenv(Env)
	if path == "" {
		return
	}
	marks = make([]mark, 0, 128)
	marks = append(marks, mark{time.Now(), "init (first package init after the runtime's)"})
	on.Store(true)
}

// On reports whether the timeline is kept (to skip building a label).
func On() bool { return on.Load() }

// Mark notes that what happened now.
func Mark(what string) {
	if !on.Load() {
		return
	}
	now := time.Now()
	mu.Lock()
	marks = append(marks, mark{now, what})
	mu.Unlock()
}

// Markf notes what, followed by the parts, separated by spaces: a label
// with a server's name costs nothing when the timeline is off.
func Markf(what string, parts ...string) {
	if !on.Load() {
		return
	}
	for _, p := range parts {
		what += " " + p
	}
	Mark(what)
}

// Write writes the marks to the file AGENT_TRACE_START names (nothing
// when unset), with a last mark for the write itself. Marks made later
// are dropped.
func Write() error {
	if !on.Load() {
		return nil
	}
	Mark("exit")
	on.Store(false)
	mu.Lock()
	ms := marks
	mu.Unlock()
	t0 := ms[0].at
	b := make([]byte, 0, 64*len(ms))
	for _, m := range ms {
		b = strconv.AppendInt(b, m.at.UnixNano(), 10)
		b = append(b, ' ')
		b = strconv.AppendFloat(b, float64(m.at.Sub(t0).Microseconds())/1000, 'f', 3, 64)
		b = append(b, ' ')
		b = append(b, m.what...)
		b = append(b, '\n')
	}
	return os.WriteFile(path, b, 0o600)
}
