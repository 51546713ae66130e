package mcp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
)

// TestModernHTTPCancelClosesTheStream: over streamable HTTP in protocol
// 2026-07-28 a call that times out or is cancelled is cancelled by ending
// its request's stream, which the server takes for the cancellation
// (basic/patterns/cancellation: "No notifications/cancelled message is
// required or expected"); no notifications/cancelled is sent, and the
// call does not wait for one to be written to a server that may be the
// reason it was cancelled. Before, the agent posted one and waited for it
// as for a server of 2025-11-25 (TestCancelledAtServer).
func TestModernHTTPCancelClosesTheStream(t *testing.T) {
	t.Parallel()
	for _, timeout := range []bool{true, false} {
		name := "turn cancelled"
		if timeout {
			name = "tool timeout"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			log := newRPCLog()
			ended := make(chan struct{})
			s := server.NewMCPServer("hang", "1.0.0", server.WithToolCapabilities(true))
			s.AddTool(mcpgo.NewTool("hang", mcpgo.WithDescription("Never answers")),
				func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
					<-ctx.Done()
					close(ended)
					return nil, ctx.Err()
				})
			hs := httptest.NewServer(log.wrap(server.NewStreamableHTTPServer(s,
				server.WithStreamableHTTPProtocolVersions(mcpgo.ProtocolVersion20260728))))
			t.Cleanup(hs.Close)
			cfg := config.MCPServer{Name: "h", Type: config.MCPHTTP, URL: hs.URL + "/mcp", ToolTimeout: time.Hour}
			if timeout {
				cfg.ToolTimeout = 200 * time.Millisecond
			}
			_, set := startRegistered(t, Options{}, cfg)
			tool, _ := set.Lookup("h__hang")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if !timeout {
				go func() {
					if id, _ := log.await(ctx, false); id != nil {
						cancel()
					}
				}()
			}
			if _, err := tool.Exec(ctx, json.RawMessage(`{}`)); err != nil && timeout {
				t.Fatalf("timeout: %v", err)
			}
			// The server's handler sees its request end: the stream closed.
			select {
			case <-ended:
			case <-t.Context().Done():
				t.Fatal("the server's handler never saw its request cancelled")
			}
			log.mu.Lock()
			_, cancelID := log.ids()
			log.mu.Unlock()
			if cancelID != nil {
				t.Errorf("a notifications/cancelled was posted (requestId %v): protocol 2026-07-28 over HTTP cancels by closing the stream", cancelID)
			}
		})
	}
}
