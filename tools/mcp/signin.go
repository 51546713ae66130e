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
	err := c.connectForward(parent)
	if c.auth == nil {
		return err
	}
	// A second sign-in only when the first was forgotten meanwhile: the
	// server moved to another authorization server during the start
	// (SEP-2352), not a server that refuses the token it just gave.
	for range 2 {
		if err == nil || !errors.Is(err, oauth.ErrSignInRequired) || !c.auth.Interactive() {
			break
		}
		if lerr := c.auth.Login(parent); lerr != nil {
			return lerr
		}
		// The sign-in may have outlasted the server's keep-alive.
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		// A protected server answers the 401 before it can refuse the
		// handshake: its refusal comes now.
		err = c.connectForward(parent)
		if c.auth.State() != oauth.StateNotSignedIn {
			break
		}
	}
	c.auth.SetLive(err == nil)
	if se := (*oauth.SignInError)(nil); errors.As(err, &se) {
		// The transport's wrapping says nothing the user can act on.
		return se
	}
	if ge := (*oauth.GrantError)(nil); errors.As(err, &ge) {
		return ge // the same: a workload token that cannot be read, a refused grant
	}
	return err
}

// connectForward connects once, and once more sending server/discover
// first when the server refused the 2025-11-25 handshake it was sent
// without a probe (modern.go, era.go).
func (c *conn) connectForward(parent context.Context) error {
	err := c.connectOnce(parent)
	if err != nil && c.fallsForward(err) {
		was := c.getEra()
		c.setEra(eraModern)
		if c.auth != nil {
			_ = c.auth.TakeRefusal() // only this attempt's counts
		}
		ferr := c.connectOnce(parent)
		var refusal *oauth.SignInError
		if c.auth != nil {
			refusal = c.auth.TakeRefusal()
		}
		switch {
		case ferr == nil:
			err = nil
		case refusal != nil:
			// It speaks 2026-07-28 and wants a sign-in first (a server
			// may take the initialize without one and refuse it). mcp-go
			// took the probe's 401 for an older server and tried
			// initialize, which the server refused again.
			err = refusal
		default:
			// Should it not answer that either, what the user sees is
			// the first refusal, which says what else it may be (an SSE
			// server).
			c.setEra(was)
		}
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
	if ge := (*oauth.GrantError)(nil); errors.As(e.err, &ge) && ge.Server == e.server {
		return fmt.Sprintf("MCP server %s did not start: %v", e.server, ge.Err)
	}
	return fmt.Sprintf("MCP server %s did not start: %v", e.server, e.err)
}

func (e *startError) Unwrap() error { return e.err }
