package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agent-dev/agent/agent"
	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// defaultStartWait bounds how long a turn's first request waits for MCP
// servers that have no cached catalog (config mcp_start_wait).
const defaultStartWait = 30 * time.Second // the mcp_start_wait default, for an App built without Settings

// uncatalogued names the servers still starting whose tools are not known
// at all: no cached list. A request sent now would go without them, and the
// model would answer that the tool the user named does not exist.
func (a *App) uncatalogued() []string {
	if a.mcp == nil {
		return nil
	}
	var out []string
	for _, st := range a.mcp.Status() {
		if st.State == mcptools.StateStarting && st.Tools == 0 && !st.Cached {
			out = append(out, st.Name)
		}
	}
	return out
}

// SkipCatalogWait sends the held request now, without the servers still
// starting (esc in the TUI while the status says "catalog: starting…").
// It reports whether a wait was under way.
func (a *App) SkipCatalogWait() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.skipWait == nil {
		return false
	}
	close(a.skipWait)
	a.skipWait = nil
	return true
}

// awaitCatalog holds the turn until the servers with no cached catalog have
// listed their tools (or failed), mcp_start_wait passes, the user skips the
// wait, or ctx ends. Servers with a cached catalog never hold a request.
func (a *App) awaitCatalog(ctx context.Context, emit func(agent.Event)) {
	names := a.uncatalogued()
	if len(names) == 0 {
		return
	}
	wait := a.startWait
	if wait <= 0 {
		wait = defaultStartWait
	}
	skip := make(chan struct{})
	a.mu.Lock()
	a.skipWait = skip
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		if a.skipWait == skip {
			a.skipWait = nil
		}
		a.mu.Unlock()
	}()
	emit(agent.Event{Type: agent.EventCatalogWait, Text: strings.Join(names, ", ")})
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.mcp.WaitListed(wctx, names) }()
	var note string
	select {
	case err := <-done:
		if err != nil && ctx.Err() == nil {
			note = fmt.Sprintf("%s still starting after %s: sent without its tools; they apply from the next turn (mcp_start_wait sets the wait)", strings.Join(a.uncatalogued(), ", "), wait)
		}
	case <-skip:
		cancel()
		if err := <-done; err == nil {
			break // every server listed its tools just as the user skipped
		}
		note = fmt.Sprintf("sent without the tools of %s, still starting; they apply from the next turn", strings.Join(a.uncatalogued(), ", "))
	}
	if ctx.Err() != nil {
		return // the turn is cancelled; Run reports it
	}
	emit(agent.Event{Type: agent.EventCatalogReady, Text: note})
	if note != "" {
		emit(agent.Event{Type: agent.EventWarning, Text: note})
	}
}
