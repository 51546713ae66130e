package mcp

import (
	"bytes"
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
)

// orderedCache is a memCache that records whether a save came before the
// run's first request went out.
type orderedCache struct {
	*memCache
	sent  atomic.Bool
	early atomic.Int32
	saved chan struct{}
}

func (c *orderedCache) SaveCatalog(ctx context.Context, e tools.CatalogEntry) error {
	if !c.sent.Load() {
		c.early.Add(1)
	}
	err := c.memCache.SaveCatalog(ctx, e)
	select {
	case c.saved <- struct{}{}:
	default:
	}
	return err
}

// A run without a UI (DeferStart) writes the list of a server it waited
// for after its first request has gone out (StartDeferred), not while the
// request is being built; a run that sends nothing writes it at Close.
// Every listed schema was checked as the list arrived.
func TestCacheWriteWaitsForTheFirstRequest(t *testing.T) {
	t.Parallel()
	for _, send := range []bool{true, false} {
		cache := &orderedCache{memCache: newMemCache(), saved: make(chan struct{}, 1)}
		cfg := testServerConfig(t, "edge", "tools")
		m, _, errs := startManager(t, Options{Cache: cache, DeferStart: true}, cfg)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		set := tools.NewSet()
		if err := m.Register(set, false); err != nil {
			t.Fatal(err)
		}
		if len(set.All()) == 0 {
			t.Fatal("no tools registered")
		}
		for _, c := range m.conns {
			for _, rt := range c.list {
				if !rt.Checked {
					t.Errorf("%s: its schema was not checked as the list arrived", rt.Name)
				}
			}
		}
		// The write waits; without the hold it would be under way by now.
		waitHeldWrite(t)
		cache.sent.Store(true)
		if send {
			m.StartDeferred()
			select {
			case <-cache.saved:
			case <-time.After(20 * time.Second):
				t.Fatal("the list was never written after the first request")
			}
		}
		m.Close()
		cache.only(t)
		if n := cache.early.Load(); n != 0 {
			t.Errorf("send=%v: %d cache writes before the first request", send, n)
		}
	}
}

// waitHeldWrite waits until a cache write is parked in holdWrite.
func waitHeldWrite(t *testing.T) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	buf := make([]byte, 1<<20)
	for {
		if bytes.Contains(buf[:runtime.Stack(buf, true)], []byte("(*Manager).holdWrite")) {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("no cache write waits for the first request")
		}
	}
}
