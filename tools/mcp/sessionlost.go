package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
)

// A streamable HTTP server that restarts forgets its sessions. The spec has
// it answer a request with an unknown Mcp-Session-Id with 404 and the client
// start a new session; the TypeScript SDK's example server, which many
// servers copy (server-everything among them), answers 400 "Bad Request: No
// valid session ID provided" instead. On a 404 mcp-go v1.2.1 ends the session
// (transport.ErrSessionTerminated) and refuses every later request of the
// transport until an initialize succeeds on it, which it leaves to its
// caller; a 400 it hands back as the server's own error. Either way a request
// failed once (400: every request, until /mcp reconnect). The status is all
// there is to go by (errors are not matched by their text): sessionTap sees a
// POST that carried a session id answered 400 or 404 and flags the request's
// context (watchSession), and the request (resend) starts a new session and
// is sent once more. A request so rejected was not run by the server, so
// sending it again is safe; a second rejection is its error.

// sessionWatchKey is the context key of the sessionWatch sessionTap fills.
type sessionWatchKey struct{}

// sessionWatch is what sessionTap saw of the requests sent with one
// context.
type sessionWatch struct {
	sent     atomic.Bool  // the request's POST went out
	rejected atomic.Int32 // the status (400 or 404) with which the server rejected that POST's session id
}

// watchSession returns ctx with a sessionWatch for the requests sent with
// it.
func watchSession(ctx context.Context) (context.Context, *sessionWatch) {
	w := new(sessionWatch)
	return context.WithValue(ctx, sessionWatchKey{}, w), w
}

// unwatched returns ctx without the sessionWatch it may carry. The requests
// that follow one the server ran, a task's tasks/result, tasks/get and
// tasks/cancel after its tools/call, must not have that one resent when
// they are rejected: the tool would run twice.
func unwatched(ctx context.Context) context.Context {
	return context.WithValue(ctx, sessionWatchKey{}, (*sessionWatch)(nil))
}

// lost returns the status with which the server rejected the session of the
// request that failed with err (0: it did not), when the request was not
// run: answered 400 or 404 on its session id, or never sent because a 404
// had ended the session already (mcp-go's transport refuses requests then,
// with transport.ErrSessionTerminated, until a new session starts: another
// request saw the 404, or the GET stream did).
func (w *sessionWatch) lost(err error) int {
	switch {
	case err == nil:
		return 0
	case w.rejected.Load() != 0:
		return int(w.rejected.Load())
	case !w.sent.Load() && errors.Is(err, transport.ErrSessionTerminated):
		return http.StatusNotFound
	}
	return 0
}

// sessionTap fills, in the request's context (watchSession), whether a POST
// went out and whether the server rejected its session id (400 or 404). A
// GET stream that worked on a session and is then answered 400 or 404 on it
// has lost the session too: lost is called, once, to start a new one. After
// a 400 that also ends this transport's once-a-second retries of the GET;
// after a 404 mcp-go waits for a new session on this transport, which nobody
// would start until the next request, while the server's notifications (its
// list_changed among them) are lost.
type sessionTap struct {
	base http.RoundTripper
	lost func(status int) // set before the transport starts

	mu     sync.Mutex
	opened string // the session of the last GET stream that opened
	done   bool   // lost was called
}

func (t *sessionTap) RoundTrip(req *http.Request) (*http.Response, error) {
	w, _ := req.Context().Value(sessionWatchKey{}).(*sessionWatch)
	// The first POST sent with the watch is the watched request. Those
	// that follow are mcp-go's answers to the server's requests that came
	// on its stream (a ping, roots/list), which it sends with the
	// request's context: the server had accepted the request by then and
	// may have run it, so their rejection must not have it resent.
	first := w != nil && req.Method == http.MethodPost && w.sent.CompareAndSwap(false, true)
	resp, err := t.base.RoundTrip(req)
	if err == nil {
		resp = probeAnswer(req, resp) // era.go
	}
	session := req.Header.Get(transport.HeaderKeySessionID)
	if err != nil || session == "" {
		return resp, err
	}
	rejected := resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusNotFound
	switch {
	case req.Method == http.MethodPost && rejected:
		if first {
			w.rejected.Store(int32(resp.StatusCode))
		}
	case req.Method == http.MethodGet && resp.StatusCode == http.StatusOK:
		t.mu.Lock()
		t.opened = session
		t.mu.Unlock()
	case req.Method == http.MethodGet && rejected:
		// Only a stream that opened on this session: a server that answers
		// every GET 400 would otherwise be reconnected over and over (one
		// that answers it 404 does not offer the stream, and mcp-go stops).
		t.mu.Lock()
		call := t.opened == session && !t.done && t.lost != nil
		t.done = t.done || call
		t.mu.Unlock()
		if call {
			go t.lost(resp.StatusCode)
		}
	}
	return resp, err
}

// renewSession drops cl, whose session the server rejected (HTTP status),
// and connects again: a new session. Closing cl also ends its GET stream,
// which would otherwise retry on the lost session. A request that finds cl
// already dropped by another (markDown ignores it) gets the new session, or
// waits for the one being started (ensure).
func (c *conn) renewSession(ctx context.Context, cl *client.Client, status int, cause error) (*client.Client, error) {
	c.markDownDrained(cl, fmt.Errorf("the server did not accept the session (HTTP %d: %w)", status, cause), status)
	return c.ensure(ctx)
}

// inflight is the count of a client's requests in flight (conn.use).
type inflight struct {
	n    int
	idle chan struct{} // closed when n is back to 0 (made by drained)
}

// use counts a request in flight on cl until the returned func is called.
// The requests a lost session has sent again are counted: the other
// requests in flight when one of them renews the session had gone out on
// the same session and will be rejected too, and closing cl at once would
// cancel them, not have them sent again.
func (c *conn) use(cl *client.Client) (done func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight == nil {
		c.inflight = map[*client.Client]*inflight{}
	}
	u := c.inflight[cl]
	if u == nil {
		u = &inflight{}
		c.inflight[cl] = u
	}
	u.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if u.n--; u.n == 0 {
				delete(c.inflight, cl)
				if u.idle != nil {
					close(u.idle)
				}
			}
		})
	}
}

// drained is closed once no request counted by use is in flight on cl.
func (c *conn) drained(cl *client.Client) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.inflight[cl]
	if u == nil {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if u.idle == nil {
		u.idle = make(chan struct{})
	}
	return u.idle
}

// resend runs send with cl and, when the server rejected the session
// (sessionWatch.lost), once more with a new session's client; a second
// rejection is its error. It is for requests the agent sends on its own
// (resources/read, prompts/get, completion/complete); tools/call does the
// same in callTimed, which says more about its failures.
func (c *conn) resend(ctx context.Context, cl *client.Client, send func(context.Context, *client.Client) error) error {
	sctx, w := watchSession(ctx)
	done := c.use(cl)
	err := send(sctx, cl)
	done()
	status := w.lost(err)
	if status == 0 || ctx.Err() != nil {
		return err
	}
	ncl, rerr := c.renewSession(ctx, cl, status, err)
	if rerr != nil {
		return rerr
	}
	return send(ctx, ncl)
}
