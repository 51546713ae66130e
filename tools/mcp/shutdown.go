package mcp

import (
	"sync"
	"time"

	"github.com/agent-dev/agent/internal/starttrace"
)

// closeGrace is how long Close lets servers exit before it kills them.
const closeGrace = time.Second

// termAfter is how long Close waits, after a server's input closed, before
// it asks a server still running to stop with SIGTERM: the MCP lifecycle's
// stdio shutdown is close the input, wait, SIGTERM, wait, SIGKILL. Servers
// that honour the closed input exit well within it (the npm servers here
// in about 0.1 s); one whose event loop a timer keeps alive
// (server-everything) held every exit of the agent for the whole grace,
// then was killed without being asked. SIGTERM lets it clean up and exit
// at once; one that ignores SIGTERM too is killed at closeGrace as before.
const termAfter = 250 * time.Millisecond

// Close disconnects every server and, after a grace period (closeGrace),
// kills the process groups of stdio servers that do not exit when their
// input closes, and of those that did but left processes in their group.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	starttrace.Mark("mcp close begin")
	defer starttrace.Mark("mcp close end")
	// The processes running now have their groups killed after the grace
	// period even if the leader exits within it: what it started in its
	// group (a server under npx, a shell's children) would be left behind.
	// Only these: a group whose leader exited long ago may be another
	// program's by now.
	running := m.procs.running()
	var wg sync.WaitGroup
	for _, c := range m.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.close()
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	// Closing stdin lets a well-behaved server exit by itself; whatever is
	// still running after a grace period is killed with its process group.
	expired := make(chan struct{}) // closed: read by every wait below
	grace := time.AfterFunc(m.grace, func() { close(expired) })
	defer grace.Stop()
	term := time.AfterFunc(m.termAfter, func() {
		for _, p := range running {
			select {
			case <-p.exited:
			default:
				p.term()
			}
		}
	})
	defer term.Stop()
	select {
	case <-done:
	case <-expired:
	}
	for _, p := range running {
		select {
		case <-p.exited:
		case <-expired:
		}
	}
	m.cancel()
	for _, p := range running {
		p.kill()
	}
	<-done
	for _, c := range m.conns {
		c.markReady()
	}
	// Cache writes are short; a run must not lose the list it paid for.
	starttrace.Mark("mcp close: connections closed")
	m.saves.Wait()
	return nil
}
