// Package gctune gives the garbage collector a floor of headroom: the heap
// may grow to its live size plus Headroom before a collection, where
// GOGC=100 alone would collect at twice the live size (and, on a small
// heap, at 4 MB). A run of the agent is short and its heap small: a -p
// turn at 282 tools keeps 1-6 MB live and allocates a few MB between
// collections, so GOGC=100 collected 3-4 times before the first request
// went out (3 of them at a 4 MB goal), each waking the other core for its
// mark workers. With the floor the same run collects once, in package
// init (before main sets it). A large
// heap (thousands of tools, live above Headroom) is collected as before:
// the floor only raises the goal of heaps smaller than it.
//
// Figures, anthropic deferred at 282 tools (GODEBUG=gctrace=1 and perf
// record -g of 9 cold and 9 warm runs each of main and of the floor, in
// turn, load 14): collections per cold run 3-4 -> 1 (the one left is in
// package init, before main), per warm run 2 -> 1; the collector's CPU
// 26.2 -> 6.8 ms a cold run, 19.0 -> 7.7 a warm one. Memory, `go run
// ./bench start --runs 3 --npm none --sizes 282,10000 --quiet` (load 12):
// cold peak RSS at 282 tools 31.2 -> 30.7 MB (goal 40); at 10,000 tools
// the largest cold peak of any row 98.6 -> 103.0 MB (goal 120); eager 282
// cold 65.3 -> 66.7 MB.
package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// Headroom is the floor: a collection is due when the heap has grown by
// at least this much over what the last one left live.
const Headroom = 16 << 20

// minHeap is the runtime's smallest heap goal at GOGC=100; it scales with
// GOGC (the goal is never below minHeap*GOGC/100), so GOGC may rise to
// Headroom/minHeap*100 without the floor going above Headroom.
const minHeap = 4 << 20

// Start sets GOGC from the live heap now, and again after each collection,
// unless the user tunes the collector: a GOGC set is kept, and so is the
// default with a GOMEMLIMIT set (a raised GOGC would grow a small heap
// into the limit, where the collector runs without pause, instead of
// keeping it under as the user measured it). getenv is os.Getenv. stop
// ends the adjustments (tests), leaving GOGC as it is.
func Start(getenv func(string) string) (stop func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	t := &tuner{}
	t.adjust()
	t.arm()
	return func() { t.stopped.Store(true) }
}

// percent is the GOGC that gives live bytes Headroom, never below 100 (a
// large heap keeps the default) nor above what keeps the runtime's minimum
// heap goal at Headroom.
func percent(live uint64) int {
	hi := Headroom * 100 / minHeap
	if live == 0 {
		return hi
	}
	p := Headroom * 100 / live
	return int(max(100, min(p, uint64(hi))))
}

type tuner struct {
	stopped atomic.Bool
	// Used by one goroutine at a time: Start's, then each cleanup's in
	// turn (a cleanup arms the next).
	sample [1]metrics.Sample
	gogc   int
}

func (t *tuner) adjust() {
	t.sample[0].Name = "/gc/heap/live:bytes"
	metrics.Read(t.sample[:])
	var live uint64
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		live = t.sample[0].Value.Uint64()
	}
	if p := percent(live); p != t.gogc {
		t.gogc = p
		debug.SetGCPercent(p)
	}
}

// sentinel is garbage from its allocation on: the collection after it
// runs its cleanup, which adjusts GOGC to what that collection left live
// and allocates the next. (It holds a pointer so that it is an object of
// its own, not part of a tiny block another object keeps alive.)
type sentinel struct{ _ *byte }

func (t *tuner) arm() {
	runtime.AddCleanup(new(sentinel), func(t *tuner) {
		if t.stopped.Load() {
			return
		}
		t.adjust()
		t.arm()
	}, t)
}
