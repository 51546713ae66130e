package tui

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them.
// regexp2 (under the tokenizer, tools/tokens) keeps a coarse clock
// goroutine for its match timeouts, which ends on its own a while after
// the last match: it is the library's, not a leak of ours.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"),
		// bubbletea's Tick has no cancel: a tick the program scheduled
		// before it quit (cursor blink, refresh) waits out its timer, with
		// the batch that ran it, then ends on its own.
		goleak.IgnoreAnyFunction("charm.land/bubbletea/v2.Tick.func1"),
		goleak.IgnoreAnyFunction("charm.land/bubbletea/v2.(*Program).execBatchMsg"))
}
