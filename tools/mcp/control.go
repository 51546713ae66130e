package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agent-dev/agent/internal/suggest"
)

// noServerError is ErrNoServer said for /mcp: the name, the nearest one
// configured when it looks like a typo, and where the names are.
type noServerError struct{ msg string }

func (e *noServerError) Error() string        { return e.msg }
func (e *noServerError) Is(target error) bool { return target == ErrNoServer }

// noServer is the error of an /mcp action on a name no server has:
// "no such MCP server: \"nosuch\"" said neither what to do nor which
// name was meant.
func (m *Manager) noServer(name string) error {
	names := make([]string, 0, len(m.conns))
	for _, c := range m.conns {
		names = append(names, c.cfg.Name)
	}
	if near := suggest.Nearest(name, names); near != "" {
		return &noServerError{fmt.Sprintf("no MCP server %q: did you mean %q? (/mcp lists them)", name, near)}
	}
	return &noServerError{fmt.Sprintf("no MCP server %q: /mcp lists them", name)}
}

// What /mcp does between turns: reconnect a server, disable one for the
// rest of the run, enable it again. The tools array follows at the next
// turn (Sync), like any list change.

// Reconnect drops a server's connection and connects it again now.
func (m *Manager) Reconnect(ctx context.Context, server string) (Status, error) {
	c := m.conn(server)
	if c == nil {
		return Status{}, m.noServer(server)
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
		return Status{}, m.noServer(server)
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
		return Status{}, m.noServer(server)
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
