package mcp

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
)

// writeCounter is a memCache that notes how many saves ran at once.
type writeCounter struct {
	*memCache
	mu        sync.Mutex
	now, most int
	order     []string
	// release holds the first write until every server has listed its
	// tools (and queued or run its write).
	release chan struct{}
}

func (c *writeCounter) SaveCatalog(ctx context.Context, e tools.CatalogEntry) error {
	c.mu.Lock()
	c.now++
	c.most = max(c.most, c.now)
	c.order = append(c.order, e.Server)
	first := len(c.order) == 1
	c.mu.Unlock()
	if first {
		<-c.release
	}
	defer func() {
		c.mu.Lock()
		c.now--
		c.mu.Unlock()
	}()
	return c.memCache.SaveCatalog(ctx, e)
}

// Servers that list their tools at once have their catalogs written one at
// a time (a write of its own each, none lost by Close), not concurrently:
// concurrent writes each took a database connection and queued on SQLite's
// write lock, whose busy handler sleeps.
func TestCatalogWritesOneAtATime(t *testing.T) {
	t.Parallel()
	cache := &writeCounter{memCache: newMemCache(), release: make(chan struct{})}
	cfgs := httpServers(t, 6)
	m, _, errs := startManager(t, Options{Cache: cache}, cfgs...)
	close(cache.release) // Start waited for every server's list
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	m.Close()
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if len(cache.order) != len(cfgs) || len(cache.entries) != len(cfgs) {
		t.Fatalf("%d writes of %d entries for %d servers: %v", len(cache.order), len(cache.entries), len(cfgs), cache.order)
	}
	if cache.most != 1 {
		t.Fatalf("%d catalog writes ran at once, want 1", cache.most)
	}
}

// batchCache is a memCache that writes batches (BatchCache) behind a gate
// (WriteGate), noting each batch's servers.
type batchCache struct {
	*memCache
	open    chan struct{}
	mu      sync.Mutex
	batches [][]string
	// waits, when set, is sent the context of each WaitWrites.
	waits chan context.Context
}

func (c *batchCache) WaitWrites(ctx context.Context) error {
	if c.waits != nil {
		c.waits <- ctx
	}
	select {
	case <-c.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *batchCache) SaveCatalogs(ctx context.Context, es []tools.CatalogEntry) error {
	var names []string
	for _, e := range es {
		names = append(names, e.Server)
		if err := c.memCache.SaveCatalog(ctx, e); err != nil {
			return err
		}
	}
	c.mu.Lock()
	c.batches = append(c.batches, names)
	c.mu.Unlock()
	return nil
}

// The catalogs listed while the cache's gate is shut are written in one
// batch once it opens (one transaction in the store), none lost by Close.
func TestCatalogWritesBatched(t *testing.T) {
	t.Parallel()
	cache := &batchCache{memCache: newMemCache(), open: make(chan struct{})}
	cfgs := httpServers(t, 6)
	m, _, errs := startManager(t, Options{Cache: cache}, cfgs...)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	close(cache.open) // Start waited for every server's list
	m.Close()
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if len(cache.batches) != 1 || len(cache.batches[0]) != len(cfgs) || len(cache.entries) != len(cfgs) {
		t.Fatalf("batches %v and %d entries for %d servers, want one batch of all", cache.batches, len(cache.entries), len(cfgs))
	}
}

// The gate may open long after the first catalog is queued: a first run
// waits for its slowest server (up to its start timeout, 30 s) and a -p
// run then for its first request to go out. The catalogs queued meanwhile
// are written when it opens, not dropped when a write's timeout
// (saveTimeout, 5 s) passes first.
func TestCatalogGateOutlastsWriteTimeout(t *testing.T) {
	t.Parallel()
	cache := &batchCache{memCache: newMemCache(), open: make(chan struct{}), waits: make(chan context.Context, 1)}
	ts := httptest.NewServer(server.NewStreamableHTTPServer(newInProcessServer()))
	t.Cleanup(ts.Close)
	m, _, errs := startManager(t, Options{Cache: cache}, config.MCPServer{Name: "s", Type: config.MCPHTTP, URL: ts.URL + "/mcp"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ctx := <-cache.waits
	if _, ok := ctx.Deadline(); ok {
		<-ctx.Done() // the gate opens after any deadline the queue gives it
	}
	close(cache.open)
	m.Close()
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if len(cache.entries) != 1 {
		t.Fatalf("%d catalogs written after the gate opened late, want 1", len(cache.entries))
	}
}

// httpServers starts n in-process streamable HTTP servers, s0 to s(n-1),
// and gives their configs.
func httpServers(t *testing.T, n int) []config.MCPServer {
	t.Helper()
	var cfgs []config.MCPServer
	for i := range n {
		ts := httptest.NewServer(server.NewStreamableHTTPServer(newInProcessServer()))
		t.Cleanup(ts.Close)
		cfgs = append(cfgs, config.MCPServer{Name: fmt.Sprintf("s%d", i), Type: config.MCPHTTP, URL: ts.URL + "/mcp"})
	}
	return cfgs
}
