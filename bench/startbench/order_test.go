package startbench

import (
	"reflect"
	"testing"
)

// A cell's cold and warm runs alternate, each pair in the other order
// from the one before, so neither column takes the first runs after the
// bench's setup, or a drift over the cell, alone.
func TestRunOrder(t *testing.T) {
	c := func(i int) benchRun { return benchRun{cold: true, i: i} }
	w := func(i int) benchRun { return benchRun{cold: false, i: i} }
	for _, tc := range []struct {
		runs int
		want []benchRun
	}{
		{0, nil},
		{1, []benchRun{c(0), w(1)}},
		{2, []benchRun{c(0), w(1), w(2), c(1)}},
		{5, []benchRun{c(0), w(1), w(2), c(1), c(2), w(3), w(4), c(3), c(4), w(5)}},
	} {
		got := runOrder(tc.runs)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("runOrder(%d) = %v, want %v", tc.runs, got, tc.want)
		}
		// Every cold and every warm run once, numbered as the timelines
		// are named (cold-0.., warm-1..), whatever the count.
		var colds, warms int
		for _, r := range got {
			if r.cold {
				if r.i != colds {
					t.Errorf("runOrder(%d): cold run %d where %d was due", tc.runs, r.i, colds)
				}
				colds++
			} else {
				warms++
				if r.i != warms {
					t.Errorf("runOrder(%d): warm run %d where %d was due", tc.runs, r.i, warms)
				}
			}
		}
		if colds != tc.runs || warms != tc.runs {
			t.Errorf("runOrder(%d): %d cold and %d warm runs", tc.runs, colds, warms)
		}
	}
}
