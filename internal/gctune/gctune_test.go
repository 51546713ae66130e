package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 400},        // nothing live yet: the goal is the floor, 16 MB
		{1 << 20, 400},  // capped: GOGC 1600 would raise the runtime's minimum goal to 64 MB
		{4 << 20, 400},  // 4 + 16 MB
		{8 << 20, 200},  // 8 + 16 MB
		{16 << 20, 100}, // twice the live heap is the floor
		{64 << 20, 100}, // a large heap keeps the default
	} {
		if got := percent(c.live); got != c.want {
			t.Errorf("percent(%d MB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}

func gogc() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestFollowsTheLiveHeap: after a collection with a large heap live, GOGC
// is back at 100; once it is dropped, the next collections raise it again.
func TestFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	stop := Start(func(string) string { return "" })
	defer stop()
	if g := gogc(); g != 400 {
		t.Fatalf("GOGC after Start with a small heap = %d, want 400", g)
	}
	func() {
		keep := make([]*[1 << 20]byte, 40)
		for i := range keep {
			keep[i] = new([1 << 20]byte)
		}
		// The cleanup runs after the collection that found the sentinel,
		// on another goroutine: collect until it has.
		for gogc() != 100 {
			runtime.GC()
			runtime.Gosched()
		}
		runtime.KeepAlive(keep)
	}()
	for gogc() != 400 {
		runtime.GC()
		runtime.Gosched()
	}
}

// The user's own tuning is kept: a GOGC, and a GOMEMLIMIT, which a
// raised GOGC would have the heap run into (a small limit then collects
// without pause) rather than stay under at the default.
func TestUserSettingsKept(t *testing.T) {
	for _, c := range []struct{ key, value string }{
		{"GOGC", "150"},
		{"GOMEMLIMIT", "16MiB"},
	} {
		func() {
			defer debug.SetGCPercent(debug.SetGCPercent(150))
			defer Start(func(k string) string {
				if k == c.key {
					return c.value
				}
				return ""
			})()
			if g := gogc(); g != 150 {
				t.Errorf("GOGC = %d after Start with %s=%s set, want 150 kept", g, c.key, c.value)
			}
		}()
	}
}
