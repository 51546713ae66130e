package mcp

import "sync"

// saveQueue runs the catalog cache writes one after another, in the order
// they were queued, on one goroutine that lives while there is work. At
// start every server's list arrives within a few milliseconds: written
// concurrently, each write opened a database connection of its own (the
// pool's), and they queued on SQLite's write lock, whose busy handler
// sleeps (1, 2, 5, 10 ms...), so a first run's session and its later
// writes waited behind them. One writer keeps one connection and never
// meets another write of its own; it also keeps the writes' CPU (encoding,
// the inserts) on one core, beside the start.
type saveQueue struct {
	mu      sync.Mutex
	q       []func()
	running bool
}

// queueSave runs f after the writes queued before it; Manager.Close waits
// for it (m.saves).
func (m *Manager) queueSave(f func()) {
	m.saves.Add(1)
	m.sq.mu.Lock()
	m.sq.q = append(m.sq.q, f)
	start := !m.sq.running
	m.sq.running = true
	m.sq.mu.Unlock()
	if start {
		go m.drainSaves()
	}
}

func (m *Manager) drainSaves() {
	for {
		m.sq.mu.Lock()
		if len(m.sq.q) == 0 {
			m.sq.running = false
			m.sq.mu.Unlock()
			return
		}
		f := m.sq.q[0]
		m.sq.q[0] = nil
		m.sq.q = m.sq.q[1:]
		m.sq.mu.Unlock()
		f()
		m.saves.Done()
	}
}
