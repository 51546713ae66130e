package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools/mcp/oauth"
)

// newAuthorizer is a remote server's sign-in, nil when it has none (a
// stdio server, "oauth": false, or a manager without a place for tokens).
func newAuthorizer(s config.MCPServer, o oauth.Options) *oauth.Authorizer {
	if o.Dir == "" {
		return nil
	}
	return oauth.New(s, o)
}

// httpClient is the HTTP client of a remote server's transport: results
// read through the cap, and the sign-in around it when the server has one.
func (c *conn) httpClient() *http.Client {
	cl := capClient(c.m.opts.MaxToolResultBytes, &c.pages)
	if c.auth != nil {
		cl.Transport = c.auth.Wrap(cl.Transport)
	}
	return cl
}

// connect connects the server; a remote server that asks for a sign-in
// during the start gets one through the browser when the manager may open
// one (Options.OAuth.Prompt), bounded by the sign-in's own timeout rather
// than the start's, and is connected again.
func (c *conn) connect(parent context.Context) error {
	err := c.connectOnce(parent)
	if err != nil && c.fallsForward(err) {
		// A server of protocol 2026-07-28 only (modern.go). Should it
		// not answer that either, what the user sees is the first
		// refusal, which says what else it may be (an SSE server).
		c.modern.Store(true)
		if ferr := c.connectOnce(parent); ferr != nil {
			c.modern.Store(false)
		} else {
			err = nil
		}
	}
	if c.auth == nil {
		return err
	}
	if err != nil && errors.Is(err, oauth.ErrSignInRequired) && c.auth.Interactive() {
		if lerr := c.auth.Login(parent); lerr != nil {
			return lerr
		}
		// The sign-in may have outlasted the server's keep-alive.
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		err = c.connectOnce(parent)
	}
	c.auth.SetLive(err == nil)
	if se := (*oauth.SignInError)(nil); errors.As(err, &se) {
		// The transport's wrapping says nothing the user can act on.
		return se
	}
	return err
}

// SignInNeeded returns the errors of the servers whose start failed for
// want of a sign-in.
func (m *Manager) SignInNeeded() []error {
	var out []error
	for _, c := range m.conns {
		c.mu.Lock()
		err := c.err
		c.mu.Unlock()
		if err != nil && errors.Is(err, oauth.ErrSignInRequired) {
			out = append(out, err)
		}
	}
	return out
}

// Authorizer returns the sign-in of the named server (nil: it has none).
func (m *Manager) Authorizer(name string) *oauth.Authorizer {
	for _, c := range m.conns {
		if c.cfg.Name == name {
			return c.auth
		}
	}
	return nil
}

// startError is a server's start failure. One that needs a sign-in names
// the server once ("MCP server X did not start: it needs a sign-in: run
// …"), where wrapping the SignInError said "MCP server X" twice.
type startError struct {
	server string
	err    error
}

func (e *startError) Error() string {
	if se := (*oauth.SignInError)(nil); errors.As(e.err, &se) && se.Server == e.server {
		return fmt.Sprintf("MCP server %s did not start: it %s", e.server, se.Need())
	}
	return fmt.Sprintf("MCP server %s did not start: %v", e.server, e.err)
}

func (e *startError) Unwrap() error { return e.err }
