package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
)

// tsSessions answers a request with a session id this instance did not give
// out with status: 400 and the SDK's JSON-RPC error, as the TypeScript SDK's
// example server does (and server-everything, which copies it), or 404 as
// the spec says. reject is a method answered so on every session too, as by
// a server whose sessions never hold; noGET answers the GET stream 405, so
// that only a request finds the session lost.
type tsSessions struct {
	next   http.Handler
	status int
	reject string
	noGET  bool

	streamOpen chan struct{} // closed when a GET stream opened
	openOnce   sync.Once

	mu       sync.Mutex
	known    map[string]bool
	rejected map[string]int // requests answered status, by method
	seen     map[string]int // all requests, by method
}

func newTSSessions(status int, reject string, noGET bool) *tsSessions {
	return &tsSessions{next: legacyHTTP(sessionServer()), status: status, reject: reject, noGET: noGET,
		streamOpen: make(chan struct{}), known: map[string]bool{}, rejected: map[string]int{}, seen: map[string]int{}}
}

// sessionServer offers one of each thing the agent asks a server for: a
// tool, a resource, a prompt and completions of its argument.
func sessionServer() *server.MCPServer {
	s := server.NewMCPServer("sessions", "1.0.0", server.WithToolCapabilities(true),
		server.WithResourceCapabilities(false, false), server.WithPromptCapabilities(false), server.WithCompletions(),
		server.WithPromptCompletionProvider(pageCompletions{}))
	s.AddTool(mcpgo.NewTool("search"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("found"), nil
	})
	s.AddResource(mcpgo.NewResource("docs://readme", "readme", mcpgo.WithMIMEType("text/plain")),
		func(_ context.Context, r mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: r.Params.URI, MIMEType: "text/plain", Text: "read me"}}, nil
		})
	s.AddPrompt(mcpgo.NewPrompt("review", mcpgo.WithArgument("page", mcpgo.RequiredArgument())),
		func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return mcpgo.NewGetPromptResult("review", []mcpgo.PromptMessage{mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent("Review it."))}), nil
		})
	return s
}

// pageCompletions completes the argument of sessionServer's prompt.
type pageCompletions struct{}

func (pageCompletions) CompletePromptArgument(context.Context, string, mcpgo.CompleteArgument, mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	return &mcpgo.Completion{Values: []string{"intro"}}, nil
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
	s.seen[msg.Method]++
	reject := id != "" && (!s.known[id] || s.reject != "" && msg.Method == s.reject)
	if reject && msg.Method != "" {
		s.rejected[msg.Method]++
	}
	s.mu.Unlock()
	if reject {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.status)
		if s.status == http.StatusNotFound {
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`)
			return
		}
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`)
		return
	}
	s.next.ServeHTTP(&sessionWriter{ResponseWriter: w, s: s, get: r.Method == http.MethodGet}, r)
}

func (s *tsSessions) rejects(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rejected[method]
}

func (s *tsSessions) requests(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[method]
}

// sessionWriter records the session id a response gives out, and closes
// s.streamOpen once a GET stream's answer is on its way to the client.
type sessionWriter struct {
	http.ResponseWriter
	s    *tsSessions
	get  bool
	code int
}

func (w *sessionWriter) WriteHeader(code int) {
	if id := w.Header().Get("Mcp-Session-Id"); id != "" {
		w.s.mu.Lock()
		w.s.known[id] = true
		w.s.mu.Unlock()
	}
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	if w.get && w.code == http.StatusOK {
		w.s.openOnce.Do(func() { close(w.s.streamOpen) })
	}
}

// sessionRequests are the requests the agent sends a server on its own, by
// method: each returns the answer's text, or the error.
var sessionRequests = map[string]func(t *testing.T, m *Manager, set *tools.Set) (string, error){
	"tools/call": func(t *testing.T, _ *Manager, set *tools.Set) (string, error) {
		r := call(t, set, "ts__search", `{}`)
		if r.IsError {
			return "", errors.New(r.Text)
		}
		return r.Text, nil
	},
	"resources/read": func(t *testing.T, m *Manager, _ *tools.Set) (string, error) {
		r, err := m.ReadResource(t.Context(), "ts", "docs://readme")
		return r.Text, err
	},
	"prompts/get": func(t *testing.T, m *Manager, _ *tools.Set) (string, error) {
		msgs, err := m.GetPrompt(t.Context(), "ts", "review", map[string]string{"page": "intro"})
		if err != nil || len(msgs) != 1 {
			return fmt.Sprint(msgs), err
		}
		return msgs[0].Text, nil
	},
	"completion/complete": func(t *testing.T, m *Manager, _ *tools.Set) (string, error) {
		vs, err := m.Complete(t.Context(), "ts", "review", "page", "in", nil)
		return strings.Join(vs, ","), err
	},
}

// A streamable HTTP server that restarted answers the old session id with
// 404 (the spec) or 400 (the TypeScript SDK's example server): the request
// gets a new session and is sent again, once, and a second rejection is its
// error. So is a request that finds the session ended already by another's
// 404, which mcp-go does not send. A GET stream that worked and is answered
// 400 or 404 after the restart starts a new session without a request:
// after a 400 that ends the transport's once-a-second retries of the lost
// session, after a 404 the server's notifications come again.
func TestHTTPSessionRejected(t *testing.T) {
	t.Parallel()
	want := map[string]string{"tools/call": "found", "resources/read": "[resource docs://readme]\nread me", "prompts/get": "Review it.", "completion/complete": "intro"}
	type tcase struct {
		name        string
		status      int    // the server's answer to an unknown session id
		method      string // the request sent after the restart
		rejectAll   bool   // the server answers every such request status
		endedFirst  bool   // another request saw the 404 before this one is sent
		getStream   bool   // the server has a GET stream; the request is sent once it reconnected
		parallel    int    // so many requests at once (wantRejects is then at most)
		wantErr     bool
		wantRejects int
	}
	// A slash in a subtest's name would split it in two for -run.
	label := func(method string) string { return strings.ReplaceAll(method, "/", " ") }
	var cases []tcase
	for _, status := range []int{http.StatusBadRequest, http.StatusNotFound} {
		for _, method := range []string{"tools/call", "resources/read", "prompts/get", "completion/complete"} {
			cases = append(cases,
				tcase{name: fmt.Sprintf("%d %s restarted server", status, label(method)), status: status, method: method, wantRejects: 1},
				tcase{name: fmt.Sprintf("%d %s again on the new session", status, label(method)), status: status, method: method,
					rejectAll: true, wantErr: true, wantRejects: 2})
		}
		cases = append(cases, tcase{name: fmt.Sprintf("%d GET stream after the restart", status), status: status, method: "tools/call", getStream: true})
	}
	for _, method := range []string{"tools/call", "resources/read"} {
		cases = append(cases,
			tcase{name: "404 " + label(method) + " after another's 404", status: http.StatusNotFound, method: method, endedFirst: true},
			tcase{name: "404 " + label(method) + " 8 at once", status: http.StatusNotFound, method: method, parallel: 8, wantRejects: 8})
	}
	cases = append(cases, tcase{name: "400 resources read 8 at once", status: http.StatusBadRequest, method: "resources/read", parallel: 8, wantRejects: 8})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newTSSessions(tc.status, "", !tc.getStream)
			srv := newRestartable(t, h)
			m, ev, set := srv.start()
			send := sessionRequests[tc.method]
			if got, err := send(t, m, set); err != nil || got != want[tc.method] {
				t.Fatalf("before the restart: %q, %v", got, err)
			}

			if tc.getStream {
				// The stream is to have opened on the session: one that did
				// not is taken for a server without it.
				select {
				case <-h.streamOpen:
				case <-time.After(20 * time.Second):
					t.Fatal("the GET stream did not open within 20s")
				}
			}

			// A new server on the same address: it knows no session.
			reject := ""
			if tc.rejectAll {
				reject = tc.method
			}
			second := newTSSessions(tc.status, reject, !tc.getStream)
			srv.restart(second)

			if tc.getStream {
				ev.wait(t, "server_up", func(e Event) bool { return e.Kind == EventServerUp })
			}
			if tc.endedFirst {
				// A request of the old session's client, sent as another call
				// would be, sees the 404: mcp-go ends the session, and sends
				// no more requests on that client.
				c := m.conn("ts")
				c.mu.Lock()
				cl := c.cl
				c.mu.Unlock()
				if _, err := cl.ListPrompts(t.Context(), mcpgo.ListPromptsRequest{}); !errors.Is(err, transport.ErrSessionTerminated) {
					t.Fatalf("prompts/list on the old session: %v; want the session ended", err)
				}
			}
			if tc.parallel > 0 {
				// Each request that went out on the old session is resent,
				// whether it saw its own rejection, or found the session
				// ended or renewed by another's.
				var wg sync.WaitGroup
				for range tc.parallel {
					wg.Go(func() {
						if got, err := send(t, m, set); err != nil || got != want[tc.method] {
							t.Errorf("after the restart, at once: %q, %v", got, err)
						}
					})
				}
				wg.Wait()
				if got := second.rejects(tc.method); got < 1 || got > tc.wantRejects {
					t.Errorf("%s answered %d %d times; want 1 to %d", tc.method, tc.status, got, tc.wantRejects)
				}
				return
			}
			got, err := send(t, m, set)
			if (err != nil) != tc.wantErr || !tc.wantErr && got != want[tc.method] {
				t.Errorf("after the restart: %q, %v; want error %v", got, err, tc.wantErr)
			}
			if tc.wantErr && tc.status == http.StatusBadRequest && !strings.Contains(fmt.Sprint(err), "No valid session ID provided") {
				t.Errorf("the second 400 is not the error: %v", err)
			}
			if got := second.rejects(tc.method); got != tc.wantRejects {
				t.Errorf("%s answered %d %d times; want %d", tc.method, tc.status, got, tc.wantRejects)
			}
		})
	}
}

// A task's tools/call ran: when the server then rejects the session on the
// task's tasks/result (400 or 404), the call fails and is not sent again,
// which would run the tool twice.
func TestHTTPSessionRejectedTaskNotResent(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusBadRequest, http.StatusNotFound} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			t.Parallel()
			stop := make(chan struct{})
			t.Cleanup(func() { close(stop) })
			h := newTSSessions(status, "tasks/result", true)
			h.next = legacyHTTP(taskServer(stop, nil))
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			m, _, errs := startManager(t, Options{}, config.MCPServer{Name: "ts", Type: config.MCPHTTP, URL: ts.URL + "/mcp"})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			set := register(t, m)
			if r := call(t, set, "ts__crunch", `{"ms":0}`); !r.IsError {
				t.Errorf("the task's result was rejected, yet: %+v", r)
			}
			if n := h.requests("tools/call"); n != 1 {
				t.Errorf("tools/call sent %d times; want 1 (the task ran)", n)
			}
		})
	}
}

// mcp-go's own server, stateful, answers a session id it does not know with
// 404 as the spec says: restarted, each request the agent sends is answered
// on a new session.
func TestHTTPSessionLostMcpGoServer(t *testing.T) {
	t.Parallel()
	want := map[string]string{"tools/call": "found", "resources/read": "[resource docs://readme]\nread me", "prompts/get": "Review it.", "completion/complete": "intro"}
	for _, method := range []string{"tools/call", "resources/read", "prompts/get", "completion/complete"} {
		t.Run(strings.ReplaceAll(method, "/", " "), func(t *testing.T) {
			t.Parallel()
			stateful := func() http.Handler {
				return legacyHTTP(sessionServer(), server.WithStateful(true))
			}
			srv := newRestartable(t, stateful())
			m, _, set := srv.start()
			send := sessionRequests[method]
			if got, err := send(t, m, set); err != nil || got != want[method] {
				t.Fatalf("before the restart: %q, %v", got, err)
			}
			srv.restart(stateful())
			if got, err := send(t, m, set); err != nil || got != want[method] {
				t.Errorf("after the restart: %q, %v", got, err)
			}
		})
	}
}

// server-everything, restarted, answers the old session id with 400 "Bad
// Request: No valid session ID provided": the next request (a resource
// read, then a tool call on another restart) gets a new session and its
// answer.
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
	set := register(t, m)
	if r := call(t, set, "ev__echo", `{"message":"before"}`); r.IsError || !strings.Contains(r.Text, "before") {
		t.Fatalf("before the restart: %+v", r)
	}
	stop()
	_, stop = serveHTTPOn(t, bin, "streamableHttp", port)
	http.DefaultTransport.(*http.Transport).CloseIdleConnections() // see TestHTTPSessionRejected
	const uri = "demo://resource/dynamic/text/1"
	if r, err := m.ReadResource(t.Context(), "ev", uri); err != nil || !strings.Contains(r.Text, uri) {
		t.Errorf("resources/read after the restart: %q, %v", r.Text, err)
	}
	stop()
	serveHTTPOn(t, bin, "streamableHttp", port)
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	if r := call(t, set, "ev__echo", `{"message":"after"}`); r.IsError || !strings.Contains(r.Text, "after") {
		t.Errorf("after the restart: %+v", r)
	}
}
