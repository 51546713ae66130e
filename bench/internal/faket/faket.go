// Package faket lets the providers' test fakes run outside `go test`, for
// the benchmarks: the fakes only register cleanups and report script errors.
// Any other testing.TB method panics on the nil embedded interface, which
// would be a bench bug.
package faket

import (
	"fmt"
	"sync"
	"testing"
)

// T is the testing.TB a fake server is given by a benchmark.
type T struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	errs     []string
}

func (t *T) Helper() {}

func (t *T) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}

func (t *T) Errorf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.errs = append(t.errs, fmt.Sprintf(format, args...))
}

func (t *T) Logf(string, ...any) {}

// Close runs the cleanups, last first, as testing does.
func (t *T) Close() {
	t.mu.Lock()
	cs := t.cleanups
	t.cleanups = nil
	t.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i]()
	}
}

// Err is the first script error a fake reported, if any.
func (t *T) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.errs) == 0 {
		return nil
	}
	return fmt.Errorf("fake server: %s", t.errs[0])
}
