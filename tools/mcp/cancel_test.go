package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
)

// rpcLog records the JSON-RPC messages a server receives over HTTP.
type rpcLog struct {
	mu   sync.Mutex
	msgs []map[string]any
	more chan struct{} // closed (and replaced) when a message is recorded
}

func newRPCLog() *rpcLog { return &rpcLog{more: make(chan struct{})} }

func (l *rpcLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var m map[string]any
			if json.Unmarshal(b, &m) == nil {
				l.mu.Lock()
				l.msgs = append(l.msgs, m)
				close(l.more)
				l.more = make(chan struct{})
				l.mu.Unlock()
			}
		}
		h.ServeHTTP(w, r)
	})
}

// await waits until the server has received a tools/call and, when
// cancel is set, a notifications/cancelled, and returns their ids. The
// two go out on different HTTP requests, and a call the client gave up
// on may reach the server's handler after the client's notification was
// answered (seen under load), so neither is expected in order.
func (l *rpcLog) await(ctx context.Context, cancel bool) (callID, cancelID any) {
	for {
		l.mu.Lock()
		callID, cancelID = l.ids()
		more := l.more
		l.mu.Unlock()
		if callID != nil && (!cancel || cancelID != nil) {
			return callID, cancelID
		}
		select {
		case <-more:
		case <-ctx.Done():
			return callID, cancelID
		}
	}
}

// ids returns the id of the tools/call received and the requestId of the
// notifications/cancelled; l.mu is held.
func (l *rpcLog) ids() (callID, cancelID any) {
	for _, m := range l.msgs {
		switch m["method"] {
		case "tools/call":
			callID = m["id"]
		case "notifications/cancelled":
			if p, ok := m["params"].(map[string]any); ok {
				cancelID = p["requestId"]
			}
		}
	}
	return callID, cancelID
}

func hangServer() *server.MCPServer {
	s := server.NewMCPServer("hang", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcpgo.NewTool("hang", mcpgo.WithDescription("Never answers")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	return s
}

// TestCancelledAtServer: a call that times out, or whose turn is
// cancelled, is cancelled at the server with notifications/cancelled
// naming its request, over streamable HTTP and SSE (mcp-go sends none over
// HTTP by itself). In protocol 2025-11-25: 2026-07-28 over HTTP cancels
// by closing the stream (TestModernHTTPCancelClosesTheStream).
func TestCancelledAtServer(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		transport string
		timeout   bool // the tool's timeout, else the turn's cancellation
	}{
		{config.MCPHTTP, true}, {config.MCPHTTP, false}, {config.MCPSSE, true},
	} {
		t.Run(tt.transport, func(t *testing.T) {
			t.Parallel()
			log := newRPCLog()
			var cfg config.MCPServer
			if tt.transport == config.MCPHTTP {
				hs := httptest.NewServer(log.wrap(legacyHTTP(hangServer())))
				t.Cleanup(hs.Close)
				cfg = config.MCPServer{Name: "h", Type: config.MCPHTTP, URL: hs.URL + "/mcp"}
			} else {
				hs := httptest.NewUnstartedServer(nil)
				hs.Config.Handler = log.wrap(server.NewSSEServer(hangServer(), server.WithBaseURL("http://"+hs.Listener.Addr().String())))
				hs.Start()
				t.Cleanup(hs.Close)
				cfg = config.MCPServer{Name: "h", Type: config.MCPSSE, URL: hs.URL + "/sse"}
			}
			cfg.ToolTimeout = time.Hour
			if tt.timeout {
				cfg.ToolTimeout = 200 * time.Millisecond
			}
			_, set := startRegistered(t, Options{Logger: slog.New(slog.NewTextHandler(tWriter{t}, nil))}, cfg)
			tool, _ := set.Lookup("h__hang")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if !tt.timeout {
				go func() {
					// Cancel once the call reached the server.
					if id, _ := log.await(ctx, false); id != nil {
						cancel()
					}
				}()
			}
			r, err := tool.Exec(ctx, json.RawMessage(`{}`))
			if tt.timeout && (err != nil || !r.IsError) {
				t.Fatalf("timeout: %v %+v", err, r)
			}
			if !tt.timeout && err == nil {
				t.Fatalf("cancelled call returned %+v", r)
			}
			// The notification is written before the call returns...
			log.mu.Lock()
			_, early := log.ids()
			log.mu.Unlock()
			if early == nil {
				t.Fatal("the call returned before its notifications/cancelled reached the server")
			}
			// ... and names the call, whose own request may reach the
			// server's handler later.
			wctx, stop := context.WithTimeout(t.Context(), 30*time.Second)
			defer stop()
			callID, cancelID := log.await(wctx, true)
			if callID == nil || cancelID != callID {
				t.Fatalf("tools/call id %v, notifications/cancelled requestId %v", callID, cancelID)
			}
		})
	}
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(b []byte) (int, error) { w.t.Log(string(b)); return len(b), nil }
