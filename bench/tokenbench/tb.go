package tokenbench

import (
	"fmt"
	"sync"
	"testing"
)

// fakeT lets the providers' test fakes run outside `go test`: they only
// register cleanups and report script errors. Any other testing.TB method
// panics on the nil embedded interface, which would be a bench bug.
type fakeT struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	errs     []string
}

func (t *fakeT) Helper() {}

func (t *fakeT) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}

func (t *fakeT) Errorf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.errs = append(t.errs, fmt.Sprintf(format, args...))
}

func (t *fakeT) Logf(string, ...any) {}

// close runs the cleanups, last first, as testing does.
func (t *fakeT) close() {
	t.mu.Lock()
	cs := t.cleanups
	t.cleanups = nil
	t.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i]()
	}
}

func (t *fakeT) err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.errs) == 0 {
		return nil
	}
	return fmt.Errorf("fake server: %s", t.errs[0])
}
