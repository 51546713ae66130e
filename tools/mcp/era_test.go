package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
)

// legacyVersions are the protocol revisions before 2026-07-28.
var legacyVersions = func() []string {
	var out []string
	for _, v := range mcp.ValidProtocolVersions {
		if !mcp.IsModernProtocol(v) {
			out = append(out, v)
		}
	}
	return out
}()

// legacyHTTP serves s over streamable HTTP in protocol 2025-11-25 and
// earlier only: a server of a test whose subject is a mechanism of that
// revision (its session, GET stream, requests to the client, tasks),
// which an mcp-go server of both eras would serve in 2026-07-28 now that
// the agent speaks it to such a server.
func legacyHTTP(s *server.MCPServer, opts ...server.StreamableHTTPOption) *server.StreamableHTTPServer {
	return server.NewStreamableHTTPServer(s, append(opts, server.WithStreamableHTTPProtocolVersions(legacyVersions...))...)
}

// echoServer is a server with one tool, echo, whose list may change.
func echoServer() *server.MCPServer {
	s := server.NewMCPServer("era", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewToolWithRawSchema("echo", "Echo a message", json.RawMessage(modernSchema)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("echo: " + req.GetString("message", "")), nil
		})
	return s
}

// wire records the method of each POST a server got and whether a GET
// stream was asked for, and answers server/discover with probe when it is
// set: how a server of an earlier revision that is not mcp-go's answers a
// method it does not know.
type wire struct {
	probe func(w http.ResponseWriter, r *http.Request, next http.Handler)

	mu   sync.Mutex
	next http.Handler
	seen []string
	gets int
}

func (h *wire) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	next := h.next
	h.mu.Unlock()
	if r.Method != http.MethodPost {
		h.mu.Lock()
		h.gets += b2i(r.Method == http.MethodGet)
		h.mu.Unlock()
		next.ServeHTTP(w, r)
		return
	}
	b, _ := readAllAndRestore(r)
	var body struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(b, &body)
	h.mu.Lock()
	h.seen = append(h.seen, body.Method)
	h.mu.Unlock()
	if body.Method == string(mcp.MethodServerDiscover) && h.probe != nil {
		h.probe(w, r, next)
		return
	}
	next.ServeHTTP(w, r)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// serve makes next the server's handler from now on.
func (h *wire) serve(next http.Handler) {
	h.mu.Lock()
	h.next = next
	h.mu.Unlock()
}

// getStreams is how many GET streams were asked for.
func (h *wire) getStreams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gets
}

func (h *wire) methods() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.seen)
}

func (h *wire) reset() {
	h.mu.Lock()
	h.seen = nil
	h.mu.Unlock()
}

// answer writes status with body (JSON when it starts with "{").
func answer(status int, body string) func(http.ResponseWriter, *http.Request, http.Handler) {
	return func(w http.ResponseWriter, _ *http.Request, _ http.Handler) {
		if strings.HasPrefix(body, "{") {
			w.Header().Set("Content-Type", "application/json")
		} else {
			w.Header().Set("Content-Type", "text/plain")
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// refuseOnce refuses the first probe with -32022 naming 2026-07-28 among
// the supported versions (as the conformance suite's request-metadata
// server does), and passes the next on.
func refuseOnce() func(http.ResponseWriter, *http.Request, http.Handler) {
	var once sync.Once
	return func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		refused := false
		once.Do(func() {
			refused = true
			answer(http.StatusBadRequest, `{"jsonrpc":"2.0","id":0,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`)(w, r, next)
		})
		if !refused {
			next.ServeHTTP(w, r)
		}
	}
}

// TestEraByServer: which revision the agent speaks to a streamable HTTP
// server of each kind, and what it sends to find out. A server that
// answers server/discover is spoken to in 2026-07-28 (no initialize, no
// session, no GET stream; its list changes on subscriptions/listen); one
// that answers it in any way a server of an earlier revision does gets
// initialize next, and is spoken to in 2025-11-25. Before, every server
// was sent initialize first, and one of both eras was spoken to in
// 2025-11-25.
func TestEraByServer(t *testing.T) {
	t.Parallel()
	const sessionRequired = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`
	for _, tc := range []struct {
		name    string
		handler http.Handler
		probe   func(http.ResponseWriter, *http.Request, http.Handler)
		want    era
		first   []string // the requests the start begins with
	}{
		{"modern only", (&modernOnly{}).handler(), nil, eraModern, []string{"server/discover", "tools/list"}},
		{"both eras", server.NewStreamableHTTPServer(echoServer()), nil, eraModern, []string{"server/discover", "subscriptions/listen", "tools/list"}},
		{"legacy only (mcp-go: -32022 naming earlier versions)", legacyHTTP(echoServer()), nil, eraLegacy, []string{"server/discover", "initialize", "notifications/initialized"}},
		{"modern, refusing the probe once naming 2026-07-28", server.NewStreamableHTTPServer(echoServer()), refuseOnce(), eraModern, []string{"server/discover", "server/discover", "subscriptions/listen", "tools/list"}},
		{"legacy: any method answered", legacyHTTP(echoServer()), answer(http.StatusOK, `{"jsonrpc":"2.0","id":0,"result":{}}`), eraLegacy, []string{"server/discover", "initialize"}},
		{"legacy: -32601", legacyHTTP(echoServer()), answer(http.StatusOK, `{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}`), eraLegacy, []string{"server/discover", "initialize"}},
		{"legacy: 400 session required", legacyHTTP(echoServer()), answer(http.StatusBadRequest, sessionRequired), eraLegacy, []string{"server/discover", "initialize"}},
		{"legacy: 400 empty", legacyHTTP(echoServer()), answer(http.StatusBadRequest, ""), eraLegacy, []string{"server/discover", "initialize"}},
		{"legacy: 404", legacyHTTP(echoServer()), answer(http.StatusNotFound, "404 page not found"), eraLegacy, []string{"server/discover", "initialize"}},
		{"legacy: 405", legacyHTTP(echoServer()), answer(http.StatusMethodNotAllowed, "Method Not Allowed"), eraLegacy, []string{"server/discover", "initialize"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := &wire{next: tc.handler, probe: tc.probe}
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			srv := config.MCPServer{Name: "era", Type: config.MCPHTTP, URL: ts.URL + "/mcp"}
			m, _, errs := startManager(t, Options{}, srv)
			if len(errs) > 0 {
				t.Fatalf("start: %v (requests %q)", errs, h.methods())
			}
			if got := m.conn("era").getEra(); got != tc.want {
				t.Errorf("era %v, want %v", got, tc.want)
			}
			set := register(t, m)
			if r := call(t, set, ToolName("era", "echo"), `{"message":"hi"}`); r.IsError || !strings.Contains(r.Text, "echo: hi") {
				t.Errorf("call: %+v", r)
			}
			got := h.methods()
			if len(got) < len(tc.first) || !slices.Equal(got[:len(tc.first)], tc.first) {
				t.Errorf("requests %q, want them to begin %q", got, tc.first)
			}
			if tc.want == eraModern && (slices.Contains(got, "initialize") || h.getStreams() > 0) {
				t.Errorf("requests %q, %d GET streams: a server of 2026-07-28 got initialize or a GET stream", got, h.getStreams())
			}

		})
	}
}

// TestSSEOnlyServerAnswersTheProbe: a server of the HTTP+SSE transport
// configured as streamable HTTP refuses the probe's POST as it refuses
// initialize's; the start fails naming what it likely is, as before the
// probe.
func TestSSEOnlyServerAnswersTheProbe(t *testing.T) {
	t.Parallel()
	h := &wire{next: server.NewSSEServer(echoServer())}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	_, _, errs := startManager(t, Options{}, config.MCPServer{Name: "sse", Type: config.MCPHTTP, URL: ts.URL + "/sse"})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "legacy SSE server") {
		t.Fatalf("start errors %v, want one naming a legacy SSE server", errs)
	}
	if got := h.methods(); !slices.Equal(got, []string{"server/discover", "initialize"}) {
		t.Errorf("requests %q, want server/discover then initialize", got)
	}
}

// TestCachedEra: a server's era is kept with its cached catalog. On a
// later start a server known to be of 2025-11-25 is sent initialize
// without a probe, and one known to be of 2026-07-28 server/discover
// without initialize; a server whose cached era no longer holds (it now
// speaks 2026-07-28 only and refuses initialize) is probed, and its new
// era cached.
func TestCachedEra(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		first, later http.Handler
		want         era
		laterFirst   []string
	}{
		{"legacy: no probe", legacyHTTP(echoServer()), nil, eraLegacy, []string{"initialize", "notifications/initialized"}},
		{"modern: no initialize", server.NewStreamableHTTPServer(echoServer()), nil, eraModern, []string{"server/discover"}},
		{"legacy, now modern only: probed again", legacyHTTP(echoServer()), (&modernOnly{}).handler(), eraModern, []string{"initialize", "server/discover"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := &wire{next: tc.first}
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			cfg := config.MCPServer{Name: "era", Type: config.MCPHTTP, URL: ts.URL + "/mcp"}
			cache := newMemCache()
			fillCache(t, cache, cfg)
			_, _, extras, err := decodeCatalogExtras(cache.only(t).Tools)
			var x cachedExtras
			if err == nil {
				err = json.Unmarshal(extras, &x)
			}
			if first := map[bool]era{true: eraModern, false: eraLegacy}[tc.name == "modern: no initialize"]; err != nil || eraOf(x.Era) != first {
				t.Fatalf("cached extras %s (%v): want the era %v", extras, err, first)
			}

			if tc.later != nil {
				h.serve(tc.later)
			}
			h.reset()
			cfg.Start = config.StartEager // a cached server starts at launch only when eager
			m, _, errs := startManager(t, Options{Cache: cache}, cfg)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			m.conn("era").waitReady(t)
			set := register(t, m)
			if r := call(t, set, ToolName("era", "echo"), `{"message":"hi"}`); r.IsError || !strings.Contains(r.Text, "echo: hi") {
				t.Errorf("call: %+v", r)
			}
			got := h.methods()
			if len(got) < len(tc.laterFirst) || !slices.Equal(got[:len(tc.laterFirst)], tc.laterFirst) {
				t.Errorf("later start's requests %q, want them to begin %q", got, tc.laterFirst)
			}
			if tc.want == eraLegacy && slices.Contains(got, "server/discover") {
				t.Errorf("later start's requests %q: a server known to be of 2025-11-25 was probed", got)
			}
			if tc.want == eraModern && tc.later == nil && slices.Contains(got, "initialize") {
				t.Errorf("later start's requests %q: a server known to be of 2026-07-28 got initialize", got)
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			_, _, extras, _ = decodeCatalogExtras(cache.only(t).Tools)
			x = cachedExtras{}
			if json.Unmarshal(extras, &x) != nil || eraOf(x.Era) != tc.want {
				t.Errorf("cached extras after the later start %s: want the era %v", extras, tc.want)
			}
		})
	}
}

// TestProbeRefusedForAccess: a probe refused for want of a sign-in or a
// scope (401, 403) says nothing of the server's era: the start fails with
// it, without an initialize the server would refuse too, or let through
// to refuse the tools' listing after more sign-ins (the conformance
// suite's auth/scope-retry-limit counts them).
func TestProbeRefusedForAccess(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			h := &wire{next: legacyHTTP(echoServer()), probe: answer(status, `{"error":"insufficient_scope"}`)}
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			_, _, errs := startManager(t, Options{}, config.MCPServer{Name: "guarded", Type: config.MCPHTTP, URL: ts.URL + "/mcp"})
			if len(errs) != 1 {
				t.Fatalf("start errors %v, want one", errs)
			}
			if got := h.methods(); !slices.Equal(got, []string{"server/discover"}) {
				t.Errorf("requests %q, want server/discover only", got)
			}
		})
	}
}
