package mcp

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
)

// A streamable HTTP server that restarts forgets its sessions. The spec has
// it answer a request with an unknown Mcp-Session-Id with 404, on which
// mcp-go ends the session; but the TypeScript SDK's example server, which
// many servers copy (server-everything among them), answers 400 "Bad
// Request: No valid session ID provided". mcp-go hands that back as the
// server's own error, so every call failed with it until /mcp reconnect, and
// the transport's GET stream logged an error once a second. The status is
// all there is to go by (errors are not matched by their text): sessionTap
// sees a POST that carried a session id answered 400 and flags the request's
// context, and the call starts a new session and sends the request once more.

// sessionRejectedKey is the context key of the flag sessionTap sets.
type sessionRejectedKey struct{}

// watchSession returns ctx with a flag that is set when a request sent with
// it carried a session id and was answered 400.
func watchSession(ctx context.Context) (context.Context, *atomic.Bool) {
	f := new(atomic.Bool)
	return context.WithValue(ctx, sessionRejectedKey{}, f), f
}

// sessionTap flags, in the request's context (watchSession), a POST with a
// session id that the server answered 400. A GET stream that worked on a
// session and is then answered 400 on it has lost the session too: lost is
// called, once, to start a new one, which also ends this transport's
// once-a-second retries of the GET.
type sessionTap struct {
	base http.RoundTripper
	lost func() // set before the transport starts

	mu     sync.Mutex
	opened string // the session of the last GET stream that opened
	done   bool   // lost was called
}

func (t *sessionTap) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	session := req.Header.Get(transport.HeaderKeySessionID)
	if err != nil || session == "" {
		return resp, err
	}
	switch {
	case req.Method == http.MethodPost && resp.StatusCode == http.StatusBadRequest:
		if f, ok := req.Context().Value(sessionRejectedKey{}).(*atomic.Bool); ok {
			f.Store(true)
		}
	case req.Method == http.MethodGet && resp.StatusCode == http.StatusOK:
		t.mu.Lock()
		t.opened = session
		t.mu.Unlock()
	case req.Method == http.MethodGet && resp.StatusCode == http.StatusBadRequest:
		// Only a stream that opened on this session: a server that answers
		// every GET 400 would otherwise be reconnected over and over.
		t.mu.Lock()
		call := t.opened == session && !t.done && t.lost != nil
		t.done = t.done || call
		t.mu.Unlock()
		if call {
			go t.lost()
		}
	}
	return resp, err
}

// renewSession drops cl, whose session the server rejected (HTTP 400), and
// connects again: a new session, as after a 404. Closing cl also ends its
// GET stream, which would otherwise retry on the lost session forever.
func (c *conn) renewSession(ctx context.Context, cl *client.Client, cause error) (*client.Client, error) {
	c.markDown(cl, fmt.Errorf("the server did not accept the session (HTTP 400: %w)", cause))
	return c.ensure(ctx)
}
