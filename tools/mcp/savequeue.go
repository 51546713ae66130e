package mcp

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/agent-dev/agent/internal/starttrace"
	"github.com/agent-dev/agent/tools"
)

// saveQueue runs the catalog cache writes in the order they were queued,
// on one goroutine that lives while there is work, and writes together
// the catalogs queued together: a batch is one SaveCatalogs call (one
// transaction) where the cache has it. At start every server's list
// arrives within a few milliseconds: written concurrently, each write
// opened a database connection of its own (the pool's), and they queued on
// SQLite's write lock, whose busy handler sleeps (1, 2, 5, 10 ms...), so a
// first run's session and its later writes waited behind them. One writer
// keeps one connection and never meets another write of its own; it also
// keeps the writes' CPU (encoding, the inserts) on one core, beside the
// start. Written one transaction each, a first run's eleven catalogs took
// 11 begins, 22 statements prepared and 11 commits, each rewriting the
// table's pages into the WAL again.
type saveQueue struct {
	mu      sync.Mutex
	q       []saveJob
	running bool
}

// saveJob is a queued write: entry encodes the catalog when the writer
// takes it (not on the listing's goroutine).
type saveJob struct {
	server string
	entry  func() tools.CatalogEntry
}

// BatchCache is a Cache that writes several catalogs at once (one
// transaction: all of them or none).
type BatchCache interface {
	SaveCatalogs(ctx context.Context, es []tools.CatalogEntry) error
}

// WriteGate is a Cache whose writes must wait for something (a database
// being created): the writer waits on WaitWrites before it takes the
// queue, so what was listed meanwhile goes in one batch. Its ctx ends
// when the manager closes: a gate opened before Close should return nil
// even then.
type WriteGate interface {
	WaitWrites(ctx context.Context) error
}

// saveTimeout bounds a batch's write (not its wait on a WriteGate).
const saveTimeout = 5 * time.Second

// queueSave writes the server's catalog entry() after the writes queued
// before it; Manager.Close waits for it (m.saves).
func (m *Manager) queueSave(server string, entry func() tools.CatalogEntry) {
	m.saves.Add(1)
	m.sq.mu.Lock()
	m.sq.q = append(m.sq.q, saveJob{server, entry})
	start := !m.sq.running
	m.sq.running = true
	m.sq.mu.Unlock()
	if start {
		go m.drainSaves()
	}
}

func (m *Manager) drainSaves() {
	// The gate is waited for while the manager lives, not saveTimeout: it
	// may open long after the first list (a first run waits for its
	// slowest server, up to its start timeout, and a -p run then for its
	// first request), and a timed-out wait dropped every catalog queued
	// before. Close ends the wait (m.ctx) if the gate never opened.
	var gateErr error
	if g, ok := m.opts.Cache.(WriteGate); ok {
		gateErr = g.WaitWrites(m.ctx)
	}
	for {
		m.sq.mu.Lock()
		jobs := m.sq.q
		m.sq.q = nil
		if len(jobs) == 0 {
			m.sq.running = false
			m.sq.mu.Unlock()
			return
		}
		m.sq.mu.Unlock()
		if gateErr != nil {
			for _, j := range jobs {
				m.log.Warn("mcp: write the catalog cache", "server", j.server, "err", gateErr)
			}
		} else {
			m.writeCatalogs(jobs)
		}
		m.saves.Add(-len(jobs))
	}
}

// writeCatalogs writes the jobs' catalogs, in one batch where the cache
// can.
func (m *Manager) writeCatalogs(jobs []saveJob) {
	es := make([]tools.CatalogEntry, len(jobs))
	for i, j := range jobs {
		es[i] = j.entry()
	}
	ctx, cancel := context.WithTimeout(context.Background(), saveTimeout)
	defer cancel()
	n := strconv.Itoa(len(es)) + " catalogs"
	starttrace.Markf("cache write begin", n)
	defer starttrace.Markf("cache write end", n)
	if b, ok := m.opts.Cache.(BatchCache); ok && len(es) > 1 {
		if err := b.SaveCatalogs(ctx, es); err != nil {
			for _, e := range es {
				m.log.Warn("mcp: write the catalog cache", "server", e.Server, "err", err)
			}
		}
		return
	}
	for _, e := range es {
		if err := m.opts.Cache.SaveCatalog(ctx, e); err != nil {
			m.log.Warn("mcp: write the catalog cache", "server", e.Server, "err", err)
		}
	}
}
