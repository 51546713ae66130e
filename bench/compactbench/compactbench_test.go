package compactbench

import (
	"strings"
	"testing"
)

// The goals hold on every form: with auto-compaction on, the context stays
// under the window, nothing is rejected and nothing found is searched
// again; a compaction that drops the found tools' pair re-searches. A
// shorter session than the benchmark's keeps the test quick.
func TestCompactionGoals(t *testing.T) {
	t.Parallel()
	o := Options{Turns: 40, Discoveries: 4, Window: 9_000}
	rep, err := Run(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	_ = Markdown(&b, rep)
	t.Log("\n" + b.String())
	for _, r := range rep.Results {
		if r.Rejected != 0 || r.GaveUp != 0 {
			t.Errorf("%s %s: %d rejected, %d gave up; want 0", r.Form, r.AutoCompact, r.Rejected, r.GaveUp)
		}
		if r.AutoCompact != Off && (r.Compactions == 0 || r.ContextMax >= o.Window) {
			t.Errorf("%s %s: %d compactions, context max %d: want compaction to keep it under %d", r.Form, r.AutoCompact, r.Compactions, r.ContextMax, o.Window)
		}
		switch r.AutoCompact {
		case Naive:
			if r.ReSearchesAfter == 0 {
				t.Errorf("%s naive: no re-search; the benchmark would not see a compaction that forgets", r.Form)
			}
		default:
			if r.ReSearches != 0 || r.Searches != o.Discoveries {
				t.Errorf("%s %s: %d searches, %d re-searches; want one per discovery (%d) and none again", r.Form, r.AutoCompact, r.Searches, r.ReSearches, o.Discoveries)
			}
		}
	}
}
