// Package testgate lets a test decide when a child process it started
// (through the agent, as an MCP server) goes on: the child blocks on a
// loopback connection until the test opens the gate, with a deadline,
// instead of polling for a file.
package testgate

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// What a gate tells its waiters.
const (
	Opened = "open"
	Failed = "fail"
)

// Gate is a loopback listener; each connection is answered with the gate's
// state once it is open (or failing), and waits while it is shut.
type Gate struct {
	ln      net.Listener
	mu      sync.Mutex
	state   string        // "" while shut
	changed chan struct{} // closed at the next state change
}

// New returns a shut gate, closed when the test ends.
func New(t testing.TB) *Gate {
	t.Helper()
	ln, err := new(net.ListenConfig).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &Gate{ln: ln, changed: make(chan struct{})}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go g.serve(c, done)
		}
	}()
	return g
}

// Addr is what the child passes to Wait.
func (g *Gate) Addr() string { return g.ln.Addr().String() }

// Open lets every waiter, present and future, go on.
func (g *Gate) Open() { g.set(Opened) }

// Fail tells every waiter to fail.
func (g *Gate) Fail() { g.set(Failed) }

// Shut makes later waiters wait again.
func (g *Gate) Shut() { g.set("") }

// IsOpen reports whether the gate is open or failing.
func (g *Gate) IsOpen() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.state != ""
}

func (g *Gate) set(state string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.state = state
	close(g.changed)
	g.changed = make(chan struct{})
}

func (g *Gate) serve(c net.Conn, done <-chan struct{}) {
	defer c.Close()
	for {
		g.mu.Lock()
		state, changed := g.state, g.changed
		g.mu.Unlock()
		if state != "" {
			_, _ = fmt.Fprintln(c, state)
			return
		}
		select {
		case <-changed:
		case <-done:
			return
		}
	}
}

// Wait blocks until the gate at addr opens and returns what it says
// (Opened or Failed); it gives up after d.
func Wait(addr string, d time.Duration) (string, error) {
	c, err := (&net.Dialer{Timeout: d}).DialContext(context.Background(), "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("reach the test's gate: %w", err)
	}
	defer c.Close()
	if err := c.SetReadDeadline(time.Now().Add(d)); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("wait for the test's gate: %w", err)
	}
	return strings.TrimSpace(line), nil
}
