package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// What /mcp does between turns: reconnect a server, disable one for the
// rest of the run, enable it again. The tools array follows at the next
// turn (Sync), like any list change.

// Reconnect drops a server's connection and connects it again now.
func (m *Manager) Reconnect(ctx context.Context, server string) (Status, error) {
	c := m.conn(server)
	if c == nil {
		return Status{}, fmt.Errorf("%w: %q", ErrNoServer, server)
	}
	if c.isDisabled() {
		return c.status(), fmt.Errorf("MCP server %s is disabled: /mcp enable %s first", server, server)
	}
	c.drop(StateDown, errors.New("reconnecting"))
	if _, err := c.ensure(ctx); err != nil {
		return c.status(), err
	}
	return c.status(), nil
}

// Disable stops a server for the rest of the run; its tools leave the
// tools array at the next turn.
func (m *Manager) Disable(server string) (Status, error) {
	c := m.conn(server)
	if c == nil {
		return Status{}, fmt.Errorf("%w: %q", ErrNoServer, server)
	}
	if c.isDisabled() {
		return c.status(), nil
	}
	n := c.drop(StateDisabled, nil)
	c.markReady()
	m.listChanged(server, fmt.Sprintf("MCP server %s disabled (%s %s", server, toolCount(n), agrees(n, "leaves", "leave")))
	return c.status(), nil
}

// Enable connects a server that was disabled (in its config or with
// Disable); its tools join the tools array at the next turn.
func (m *Manager) Enable(ctx context.Context, server string) (Status, error) {
	c := m.conn(server)
	if c == nil {
		return Status{}, fmt.Errorf("%w: %q", ErrNoServer, server)
	}
	c.mu.Lock()
	if c.state != StateDisabled {
		c.mu.Unlock()
		return c.status(), nil
	}
	c.state, c.err, c.fails, c.nextTry = StateDown, nil, 0, time.Time{}
	c.mu.Unlock()
	if _, err := c.ensure(ctx); err != nil {
		return c.status(), err
	}
	st := c.status()
	m.listChanged(server, fmt.Sprintf("MCP server %s enabled (%s %s", server, toolCount(st.Tools), agrees(st.Tools, "joins", "join")))
	return st, nil
}

func (c *conn) isDisabled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state == StateDisabled
}

// drop closes the connection and puts the server in state; the next call
// (or ensure) connects it again unless it is disabled. It returns how many
// tools the server had.
func (c *conn) drop(state State, err error) int {
	c.mu.Lock()
	cl := c.cl
	c.cl, c.proc, c.state, c.err = nil, nil, state, err
	c.fails, c.nextTry = 0, time.Time{}
	n := len(c.list)
	c.mu.Unlock()
	if cl != nil {
		_ = cl.Close()
	}
	return n
}

// listChanged queues a server's tools for the next Sync and says so, with
// what the change costs.
func (m *Manager) listChanged(server, text string) {
	m.toolsChanged(server)
	m.emit(Event{Kind: EventToolsChanged, Server: server, Text: text + ")", CacheMiss: m.registered()})
}
