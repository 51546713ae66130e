package mcp

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
)

// A server that says its tools changed as it starts (server-everything
// over SSE sends tools/list_changed right after initialize) is said to be
// up once it is: the list the notification fetched was installed before
// the connection was, and the start's own listing, finding nothing new,
// said nothing ("MCP server web is up" came for the streamable HTTP server
// of a pair, never for the SSE one).
func TestServerChangedWhileStartingIsSaidUp(t *testing.T) {
	t.Parallel()
	hooks := &server.Hooks{}
	var s *server.MCPServer
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcpgo.InitializeRequest, _ *mcpgo.InitializeResult) {
		_ = s.SendNotificationToClient(ctx, mcpgo.MethodNotificationToolsListChanged, nil)
	})
	s = server.NewMCPServer("chatty", "1.0.0", server.WithToolCapabilities(true), server.WithHooks(hooks))
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithString("message")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("echo"), nil
		})
	sse := httptest.NewUnstartedServer(nil)
	sse.Config.Handler = server.NewSSEServer(s, server.WithBaseURL("http://"+sse.Listener.Addr().String()))
	sse.Start()
	t.Cleanup(sse.Close)

	m, ev, errs := startManager(t, Options{Background: true}, config.MCPServer{Name: "old", Type: config.MCPSSE, URL: sse.URL + "/sse"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if err := m.Register(tools.NewSet(), false); err != nil {
		t.Fatal(err)
	}
	up := ev.wait(t, "is up", func(e Event) bool { return e.Kind == EventToolsChanged && e.Server == "old" })
	if !strings.Contains(up.Text, "MCP server old is up (1 tool)") {
		t.Errorf("event %q, want the server said up", up.Text)
	}
}
