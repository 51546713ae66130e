package mcp

import "sync"

// procs are the stdio servers' processes still running, so Close can end
// their process groups: a server that ignores the end of its input, or
// leaves children behind when it exits, must not outlive the agent.
type procs struct {
	mu  sync.Mutex
	set map[*proc]struct{}
}

func (ps *procs) add(p *proc) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.set == nil {
		ps.set = map[*proc]struct{}{}
	}
	ps.set[p] = struct{}{}
}

func (ps *procs) remove(p *proc) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	delete(ps.set, p)
}

// running is every process not yet exited.
func (ps *procs) running() []*proc {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	out := make([]*proc, 0, len(ps.set))
	for p := range ps.set {
		out = append(out, p)
	}
	return out
}
