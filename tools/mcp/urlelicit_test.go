package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
)

// payServer is an mcp-go server whose tool "pay" answers
// URLElicitationRequiredError (-32042) until the elicitation it asked for
// is marked done (by the test, as a browser would), or always (always).
type payServer struct {
	*server.MCPServer
	mu      sync.Mutex
	calls   int
	done    bool
	always  bool
	session server.ClientSession
	id      string
	// stream, when set, carries the server's notifications over
	// streamable HTTP (getStream) instead of the session's channel.
	stream *getStream
}

func newPayServer(always bool) *payServer {
	g := &payServer{always: always}
	g.MCPServer = server.NewMCPServer("gated", "1.0.0", server.WithToolCapabilities(true))
	g.AddTool(mcpgo.NewTool("pay", mcpgo.WithDescription("Pays, once the user linked an account")),
		func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.calls++
			if g.done && !g.always {
				return mcpgo.NewToolResultText("paid"), nil
			}
			g.session = server.ClientSessionFromContext(ctx)
			g.id = fmt.Sprintf("elicit-%d", g.calls)
			return nil, mcpgo.URLElicitationRequiredError{Elicitations: []mcpgo.ElicitationParams{{
				Mode: mcpgo.ElicitationModeURL, ElicitationID: g.id,
				URL: "https://bank.example/link?e=" + g.id, Message: "Link your bank account.",
			}}}
		})
	return g
}

// finish completes the pending elicitation as the browser flow would,
// first notifying an id the client never saw (which it must ignore).
func (g *payServer) finish(notify bool) {
	g.mu.Lock()
	g.done = true
	sess, id := g.session, g.id
	g.mu.Unlock()
	if !notify {
		return
	}
	for _, e := range []string{"unknown-id", id} {
		if g.stream != nil {
			g.stream.notify(string(mcpgo.MethodNotificationElicitationComplete), map[string]any{"elicitationId": e})
		} else {
			_ = g.SendElicitationComplete(context.Background(), sess, e)
		}
	}
}

// getStream writes notifications on a streamable HTTP client's GET
// stream itself. mcp-go's server (v1.2.1) hands a session's notifications
// to whichever goroutine takes them first, and a POST's forwarder that has
// not yet seen its request end takes one and drops it: a notification
// sent just after a tools/call answer was lost now and then under load (a
// test of the fake, not of the client; made certain by delaying that
// forwarder and the GET stream's reader).
type getStream struct {
	mu    sync.Mutex
	w     http.ResponseWriter
	ready chan struct{} // closed when the client's GET stream is open
	once  sync.Once
}

func newGetStream() *getStream { return &getStream{ready: make(chan struct{})} }

// wrap serves h, keeping the GET stream's writer.
func (s *getStream) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			lw := &streamWriter{s: s, w: w}
			s.mu.Lock()
			s.w = lw.w
			s.mu.Unlock()
			s.once.Do(func() { close(s.ready) })
			w = lw
		}
		h.ServeHTTP(w, r)
	})
}

// notify writes one notification as an SSE event once the stream is open.
func (s *getStream) notify(method string, params map[string]any) {
	<-s.ready
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = fmt.Fprintf(s.w, "event: message\ndata: %s\n\n", b)
	s.w.(http.Flusher).Flush()
}

// streamWriter is the GET stream's writer as mcp-go sees it: its writes
// and ours do not interleave.
type streamWriter struct {
	s *getStream
	w http.ResponseWriter
}

func (l *streamWriter) Header() http.Header { return l.w.Header() }

func (l *streamWriter) WriteHeader(code int) {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	l.w.WriteHeader(code)
}

func (l *streamWriter) Write(b []byte) (int, error) {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	return l.w.Write(b)
}

func (l *streamWriter) Flush() {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	l.w.(http.Flusher).Flush()
}

func (g *payServer) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls
}

// TestURLElicitationRequiredRetries: a call answered -32042 shows the
// URL to the Host, waits for the user (or the server's
// notifications/elicitation/complete), and is retried once.
func TestURLElicitationRequiredRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		always bool
		// host answers the elicitation; g is the server.
		host      func(ctx context.Context, g *payServer) ElicitAnswer
		wantText  string
		wantError bool
		wantCalls int
	}{
		{name: "server notifies completion", host: func(ctx context.Context, g *payServer) ElicitAnswer {
			g.finish(true)
			// The user never presses retry: only the notification ends the
			// wait (a cancel answer would not retry the call).
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
			}
			return ElicitAnswer{Action: ActionCancel}
		}, wantText: "paid", wantCalls: 2},
		{name: "user says done", host: func(_ context.Context, g *payServer) ElicitAnswer {
			g.finish(false)
			return ElicitAnswer{Action: ActionAccept}
		}, wantText: "paid", wantCalls: 2},
		{name: "declined", host: func(context.Context, *payServer) ElicitAnswer {
			return ElicitAnswer{Action: ActionDecline}
		}, wantText: "the user declined, so the call was not retried", wantError: true, wantCalls: 1},
		{name: "still required after one retry", always: true, host: func(context.Context, *payServer) ElicitAnswer {
			return ElicitAnswer{Action: ActionAccept}
		}, wantText: "still needs the user to complete https://bank.example/link?e=elicit-2", wantError: true, wantCalls: 2},
	}
	for _, transportType := range []string{config.MCPHTTP, config.MCPSSE} {
		for _, tt := range tests {
			t.Run(transportType+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				g := newPayServer(tt.always)
				var url string
				if transportType == config.MCPHTTP {
					g.stream = newGetStream()
					ts := httptest.NewServer(g.stream.wrap(legacyHTTP(g.MCPServer)))
					t.Cleanup(ts.Close)
					url = ts.URL + "/mcp"
				} else {
					url = serveSSE(t, g.MCPServer)
				}
				var seen []Elicitation
				h := &ctxHost{elicit: func(ctx context.Context, e Elicitation) ElicitAnswer {
					seen = append(seen, e)
					return tt.host(ctx, g)
				}}
				_, set := startRegistered(t, Options{Host: h}, config.MCPServer{Name: "bank", Type: transportType, URL: url})
				r := call(t, set, "bank__pay", `{}`)
				if r.IsError != tt.wantError || !strings.Contains(r.Text, tt.wantText) {
					t.Errorf("result %+v, want error=%v with %q", r, tt.wantError, tt.wantText)
				}
				if n := g.count(); n != tt.wantCalls {
					t.Errorf("the server got %d calls, want %d", n, tt.wantCalls)
				}
				if len(seen) == 0 || !seen[0].Retry || seen[0].Mode != "url" || seen[0].URL != "https://bank.example/link?e=elicit-1" ||
					seen[0].ID != "elicit-1" || seen[0].Message != "Link your bank account." || seen[0].Server != "bank" {
					t.Errorf("the host was shown %+v", seen)
				}
			})
		}
	}
}

// TestURLElicitationRequiredCancelledWithTurn: the turn's end stops the
// wait for the user and the call is not retried.
func TestURLElicitationRequiredCancelledWithTurn(t *testing.T) {
	t.Parallel()
	g := newPayServer(false)
	ts := httptest.NewServer(legacyHTTP(g.MCPServer))
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithCancel(t.Context())
	h := &ctxHost{elicit: func(ectx context.Context, _ Elicitation) ElicitAnswer {
		cancel() // esc while the URL is shown
		<-ectx.Done()
		return ElicitAnswer{Action: ActionCancel}
	}}
	_, set := startRegistered(t, Options{Host: h}, config.MCPServer{Name: "bank", Type: config.MCPHTTP, URL: ts.URL + "/mcp"})
	tl, _ := set.Lookup("bank__pay")
	if _, err := tl.Exec(ctx, nil); err == nil {
		t.Fatal("a cancelled turn's call returned no error")
	}
	if n := g.count(); n != 1 {
		t.Errorf("the server got %d calls, want 1 (no retry after cancel)", n)
	}
}

// serveSSE serves s over mcp-go's SSE transport; its URL is returned.
func serveSSE(t *testing.T, s *server.MCPServer) string {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = server.NewSSEServer(s, server.WithBaseURL("http://"+ts.Listener.Addr().String()))
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL + "/sse"
}

// startRegistered starts a manager on servers, which must all start, and
// registers their tools in a new set.
func startRegistered(t *testing.T, opts Options, servers ...config.MCPServer) (*Manager, *tools.Set) {
	t.Helper()
	m, _, errs := startManager(t, opts, servers...)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	return m, set
}

// ctxHost is a Host whose elicitation answer sees the context.
type ctxHost struct {
	elicit func(context.Context, Elicitation) ElicitAnswer
}

func (h *ctxHost) Elicit(ctx context.Context, e Elicitation) (ElicitAnswer, error) {
	return h.elicit(ctx, e), nil
}

func (h *ctxHost) Sample(context.Context, SamplingRequest) (SamplingAnswer, error) {
	return SamplingAnswer{}, ErrDeclined
}
