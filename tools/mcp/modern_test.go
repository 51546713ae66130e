package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
)

// modernSchema keeps keywords a client must pass on untouched.
const modernSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"msg":{"type":"string"}},"properties":{"message":{"$ref":"#/$defs/msg"}},"required":["message"],"additionalProperties":false}`

// modernOnly serves protocol 2026-07-28 and nothing older, as mcp-go's
// server does with only that version allowed (a TypeScript SDK v2 server
// with legacy: 'reject' answers the same way), recording each request's
// method, _meta and Mcp-Method header.
type modernOnly struct {
	mu   sync.Mutex
	seen []string // "method meta-version header-method"
}

func (s *modernOnly) handler() http.Handler {
	srv := server.NewMCPServer("modern", "1.0.0", server.WithToolCapabilities(false))
	srv.AddTool(mcpgo.NewToolWithRawSchema("echo", "Echo a message", json.RawMessage(modernSchema)),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("echo: " + req.GetString("message", "")), nil
		})
	h := server.NewStreamableHTTPServer(srv, server.WithStreamableHTTPProtocolVersions(mcpgo.ProtocolVersion20260728))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			var body struct {
				Method string `json:"method"`
				Params struct {
					Meta map[string]any `json:"_meta"`
				} `json:"params"`
			}
			var id json.RawMessage
			b, _ := readAllAndRestore(r)
			_ = json.Unmarshal(b, &body)
			_ = json.Unmarshal(b, &struct {
				ID *json.RawMessage `json:"id"`
			}{&id})
			v, _ := body.Params.Meta[mcpgo.MetaKeyProtocolVersion].(string)
			s.mu.Lock()
			s.seen = append(s.seen, body.Method+" "+v+" "+r.Header.Get(mcpgo.HeaderMethod))
			s.mu.Unlock()
			if len(id) == 0 {
				id = json.RawMessage("null")
			}
			if v == "" {
				// What the TypeScript SDK v2's strict server answers a
				// request of an earlier revision (initialize included).
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version: 2025-11-25","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}},"id":` + string(id) + `}`))
				return
			}
		}
		if r.Method == http.MethodGet {
			http.Error(w, "no GET stream in 2026-07-28", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (s *modernOnly) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func readAllAndRestore(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, err
}

// TestModernOnlyServerConnects: a server of protocol 2026-07-28 only
// refuses the 2025-11-25 handshake; the agent falls forward to that
// revision, lists the tools with their schemas verbatim and calls them,
// each of its own requests carrying the revision's _meta and Mcp-Method.
// Before, the server failed to start ("likely a legacy SSE server").
func TestModernOnlyServerConnects(t *testing.T) {
	t.Parallel()
	s := &modernOnly{}
	ts := httptest.NewServer(s.handler())
	t.Cleanup(ts.Close)
	connectEcho(t, config.MCPServer{Name: "modern", Type: config.MCPHTTP, URL: ts.URL + "/mcp"})
	t.Logf("requests: %q", s.requests())
	var list, callReq bool
	for _, r := range s.requests() {
		f := strings.Fields(r)
		switch f[0] {
		case "tools/list", "tools/call":
			if len(f) != 3 || f[1] != mcpgo.ProtocolVersion20260728 || f[2] != f[0] {
				t.Errorf("request %q lacks the 2026-07-28 _meta or Mcp-Method header", r)
			}
			list = list || f[0] == "tools/list"
			callReq = callReq || f[0] == "tools/call"
		}
	}
	if !list || !callReq {
		t.Errorf("requests %v: want a tools/list and a tools/call", s.requests())
	}
}

// TestRefusedHandshakeKeepsItsError: a server that refuses both revisions
// (a legacy SSE server configured as "http") fails as it did, with the
// first refusal's error.
func TestRefusedHandshakeKeepsItsError(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "use /sse", http.StatusMethodNotAllowed)
	}))
	t.Cleanup(ts.Close)
	_, _, errs := startManager(t, Options{}, config.MCPServer{Name: "old", Type: config.MCPHTTP, URL: ts.URL + "/mcp"})
	if len(errs) != 1 {
		t.Fatalf("errs = %v, want one", errs)
	}
	if !errors.Is(errs[0], transport.ErrLegacySSEServer) {
		t.Errorf("error = %v, want the 2025-11-25 refusal", errs[0])
	}
}

// runModernOnlyStdio is the "modern-only" test server: over stdio, an
// mcp-go server behind a filter that answers every message of an earlier
// revision (no protocol version in its _meta: initialize included) with
// -32022 naming 2026-07-28, as the TypeScript SDK v2's serveStdio does with
// legacy: 'reject'.
func runModernOnlyStdio() {
	s := server.NewMCPServer("modern-stdio", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcpgo.NewToolWithRawSchema("echo", "Echo a message", json.RawMessage(modernSchema)),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("echo: " + req.GetString("message", "")), nil
		})
	var mu sync.Mutex
	out := syncWriter{mu: &mu, w: os.Stdout}
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Params struct {
					Meta map[string]any `json:"_meta"`
				} `json:"params"`
			}
			line := sc.Bytes()
			_ = json.Unmarshal(line, &msg)
			if v, _ := msg.Params.Meta[mcpgo.MetaKeyProtocolVersion].(string); v == "" {
				if len(msg.ID) > 0 {
					_, _ = out.Write([]byte(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"error":{"code":-32022,"message":"Unsupported protocol version: 2025-11-25","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}}` + "\n"))
				}
				continue
			}
			_, _ = pw.Write(append(append([]byte(nil), line...), '\n'))
		}
		_ = pw.Close()
	}()
	_ = server.NewStdioServer(s).Listen(context.Background(), pr, out)
}

// syncWriter serialises the filter's answers with the server's.
type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l syncWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestModernOnlyStdioServerConnects: a stdio server of protocol 2026-07-28
// only answers the 2025-11-25 initialize with -32022; the agent starts it
// again and speaks 2026-07-28. Before, it did not start ("unsupported
// protocol version").
func TestModernOnlyStdioServerConnects(t *testing.T) {
	t.Parallel()
	connectEcho(t, testServerConfig(t, "mstdio", "modern-only"))
}

// TestFallsForward: which refusals of a 2025-11-25 handshake sent without
// server/discover first are tried again probing. A server that was probed
// (an HTTP server of no known era, a stdio server known to be of
// 2026-07-28) answered initialize after refusing the probe: no second try.
func TestFallsForward(t *testing.T) {
	for _, tc := range []struct {
		name string
		typ  string
		err  error
		era  era
		want bool
	}{
		{"http known legacy, 4xx", config.MCPHTTP, fmt.Errorf("initialize: %w", transport.ErrLegacySSEServer), eraLegacy, true},
		{"stdio -32022 naming 2026-07-28", config.MCPStdio, fmt.Errorf("initialize: %w", mcpgo.UnsupportedProtocolVersionError{Version: "2025-11-25", Supported: []string{"2026-07-28"}}), eraUnknown, true},
		{"stdio known legacy, -32022 naming 2026-07-28", config.MCPStdio, mcpgo.UnsupportedProtocolVersionError{Version: "2025-11-25", Supported: []string{"2026-07-28"}}, eraLegacy, true},
		{"-32022 naming older versions only", config.MCPStdio, mcpgo.UnsupportedProtocolVersionError{Version: "2025-11-25", Supported: []string{"2024-11-05"}}, eraUnknown, false},
		{"sse 4xx", config.MCPSSE, transport.ErrLegacySSEServer, eraUnknown, false},
		{"http probed already", config.MCPHTTP, transport.ErrLegacySSEServer, eraUnknown, false},
		{"http known modern, probed already", config.MCPHTTP, transport.ErrLegacySSEServer, eraModern, false},
		{"stdio known modern, probed already", config.MCPStdio, mcpgo.UnsupportedProtocolVersionError{Version: "2025-11-25", Supported: []string{"2026-07-28"}}, eraModern, false},
		{"another failure", config.MCPHTTP, errors.New("connection refused"), eraLegacy, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &conn{cfg: config.MCPServer{Type: tc.typ}}
			c.setEra(tc.era)
			if got := c.fallsForward(tc.err); got != tc.want {
				t.Errorf("fallsForward(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// connectEcho starts srv, a server of protocol 2026-07-28 only, and checks
// that its echo tool is listed with its schema verbatim and answers.
func connectEcho(t *testing.T, srv config.MCPServer) {
	t.Helper()
	m, _, errs := startManager(t, Options{}, srv)
	if len(errs) > 0 {
		t.Fatalf("start: %v", errs)
	}
	set := register(t, m)
	tool, ok := set.Lookup(ToolName(srv.Name, "echo"))
	if !ok {
		t.Fatalf("echo not registered: %v", names(set.All()))
	}
	if got := string(tool.Schema); got != modernSchema {
		t.Errorf("schema changed on the way:\n got %s\nwant %s", got, modernSchema)
	}
	if r := call(t, set, ToolName(srv.Name, "echo"), `{"message":"hi"}`); r.IsError || !strings.Contains(r.Text, "echo: hi") {
		t.Errorf("call: %+v", r)
	}
}
