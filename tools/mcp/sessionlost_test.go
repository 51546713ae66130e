package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
)

// tsSessions answers as the TypeScript SDK's example server does (and
// server-everything, which copies it): a request with a session id this
// instance did not give out gets 400 and the SDK's JSON-RPC error, where the
// spec says 404. rejectCalls answers 400 to every tools/call too, as a
// server whose sessions never hold; noGET answers the GET stream 405, so
// that only a call finds the session lost.
type tsSessions struct {
	next        http.Handler
	rejectCalls bool
	noGET       bool

	mu       sync.Mutex
	known    map[string]bool
	rejected int // tools/call requests answered 400
}

func newTSSessions(rejectCalls, noGET bool) *tsSessions {
	return &tsSessions{next: server.NewStreamableHTTPServer(newInProcessServer()), rejectCalls: rejectCalls, noGET: noGET, known: map[string]bool{}}
}

func (s *tsSessions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct{ Method string }
	_ = json.Unmarshal(body, &msg)
	if r.Method == http.MethodGet && s.noGET {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	id := r.Header.Get("Mcp-Session-Id")
	s.mu.Lock()
	reject := id != "" && (!s.known[id] || s.rejectCalls && msg.Method == "tools/call")
	if reject && msg.Method == "tools/call" {
		s.rejected++
	}
	s.mu.Unlock()
	if reject {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`)
		return
	}
	s.next.ServeHTTP(sessionWriter{w, s}, r)
}

func (s *tsSessions) rejects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rejected
}

// sessionWriter records the session id a response gives out.
type sessionWriter struct {
	http.ResponseWriter
	s *tsSessions
}

func (w sessionWriter) WriteHeader(code int) {
	if id := w.Header().Get("Mcp-Session-Id"); id != "" {
		w.s.mu.Lock()
		w.s.known[id] = true
		w.s.mu.Unlock()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w sessionWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// A streamable HTTP server that restarted and answers the old session id
// with 400 (not the spec's 404) gets a new session and the call is sent
// again, once: a second 400 is the call's error. A GET stream that worked
// and is answered 400 after the restart starts a new session without a call,
// which ends the transport's once-a-second retries of the lost one.
func TestHTTPSessionRejectedWith400(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		rejectCalls bool // the server answers every tools/call 400
		getStream   bool // the server has a GET stream; no call is made
		wantErr     bool
		wantRejects int
	}{
		{name: "restarted server", wantRejects: 1},
		{name: "400 again on the new session", rejectCalls: true, wantErr: true, wantRejects: 2},
		{name: "GET stream after the restart", getStream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := l.Addr().String()
			serve := func(l net.Listener, h *tsSessions) *http.Server {
				hs := &http.Server{Handler: h}
				go func() { _ = hs.Serve(l) }()
				t.Cleanup(func() { _ = hs.Close() })
				return hs
			}
			first := serve(l, newTSSessions(false, !tc.getStream))
			m, ev, errs := startManager(t, Options{}, config.MCPServer{Name: "ts", Type: config.MCPHTTP, URL: "http://" + addr + "/mcp"})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			set := tools.NewSet()
			if err := m.Register(set, false); err != nil {
				t.Fatal(err)
			}
			if r := call(t, set, "ts__whoami", `{"target":"x"}`); r.IsError {
				t.Fatalf("before the restart: %+v", r)
			}

			// A new server on the same address: it knows no session.
			_ = first.Close()
			l2, err := net.Listen("tcp", addr)
			if err != nil {
				t.Skipf("cannot listen on %s again: %v", addr, err)
			}
			second := newTSSessions(tc.rejectCalls, !tc.getStream)
			serve(l2, second)
			// The client finds the old server's keep-alive connection closed
			// a moment after it went, not at once: the next call is to go to
			// the new server, as it would some time after a restart.
			http.DefaultTransport.(*http.Transport).CloseIdleConnections()

			if tc.getStream {
				ev.wait(t, "server_up", func(e Event) bool { return e.Kind == EventServerUp })
			}
			r := call(t, set, "ts__whoami", `{"target":"x"}`)
			if r.IsError != tc.wantErr {
				t.Errorf("after the restart: %+v; want error %v", r, tc.wantErr)
			}
			if tc.wantErr && !strings.Contains(r.Text, "No valid session ID provided") {
				t.Errorf("the second 400 is not the error: %+v", r)
			}
			if got := second.rejects(); got != tc.wantRejects {
				t.Errorf("tools/call answered 400 %d times; want %d", got, tc.wantRejects)
			}
		})
	}
}

// server-everything, restarted, answers the old session id with 400 "Bad
// Request: No valid session ID provided": the next call gets a new session
// and its answer.
func TestRealServerEverythingRestartedOverHTTP(t *testing.T) {
	t.Parallel()
	bin := nodeBin(t, "mcp-server-everything")
	port := freePort(t)
	base, stop := serveHTTPOn(t, bin, "streamableHttp", port)
	m, _, errs := startManager(t, Options{StartTimeout: 60 * time.Second},
		config.MCPServer{Name: "ev", Type: config.MCPHTTP, URL: base + "/mcp"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	if r := call(t, set, "ev__echo", `{"message":"before"}`); r.IsError || !strings.Contains(r.Text, "before") {
		t.Fatalf("before the restart: %+v", r)
	}
	stop()
	serveHTTPOn(t, bin, "streamableHttp", port)
	http.DefaultTransport.(*http.Transport).CloseIdleConnections() // as in TestHTTPSessionRejectedWith400
	if r := call(t, set, "ev__echo", `{"message":"after"}`); r.IsError || !strings.Contains(r.Text, "after") {
		t.Errorf("after the restart: %+v", r)
	}
}
