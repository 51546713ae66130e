package mcp

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
)

// TestSSETimeoutFollowsToolTimeout: mcp-go's SSE transport gives up on an
// answer after 60 s by default, so a call allowed 120 s failed at 60 s.
// The transport's limit now follows the tool timeout (checked on the
// transport itself: waiting a minute is not a test), and a call is ended
// by its own deadline, at the server too.
func TestSSETimeoutFollowsToolTimeout(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("slow", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcpgo.NewTool("wait", mcpgo.WithNumber("ms")), func(ctx context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		select {
		case <-time.After(time.Duration(r.GetFloat("ms", 0)) * time.Millisecond):
			return mcpgo.NewToolResultText("waited"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	url := serveSSE(t, s)

	for _, tt := range []struct {
		name        string
		toolTimeout time.Duration // the server's own; 0: Options'
		optTimeout  time.Duration
		want        time.Duration // at least
	}{
		{"default tool timeout", 0, 0, DefaultToolTimeout},
		{"server's toolTimeout", 150 * time.Second, 0, 150 * time.Second},
		{"options' tool timeout", 0, 10 * time.Minute, 10 * time.Minute},
	} {
		m := &Manager{opts: Options{ToolTimeout: tt.optTimeout, StartTimeout: 30 * time.Second}}
		if m.opts.ToolTimeout == 0 {
			m.opts.ToolTimeout = DefaultToolTimeout
		}
		c := &conn{m: m, cfg: config.MCPServer{Name: "s", Type: config.MCPSSE, URL: url, ToolTimeout: tt.toolTimeout}}
		cl, _, err := c.newClient(newTail(10))
		if err != nil {
			t.Fatal(err)
		}
		sse, ok := cl.GetTransport().(*transport.SSE)
		if !ok {
			t.Fatalf("transport %T", cl.GetTransport())
		}
		got := time.Duration(reflect.ValueOf(sse).Elem().FieldByName("responseTimeout").Int())
		if got < tt.want {
			t.Errorf("%s: the SSE transport waits %s for an answer, less than the tool timeout %s", tt.name, got, tt.want)
		}
	}

	// A short setting, end to end: a call within it answers, one past it
	// ends at its own deadline with the agent's message.
	_, set := startRegistered(t, Options{}, config.MCPServer{Name: "slow", Type: config.MCPSSE, URL: url, ToolTimeout: 1500 * time.Millisecond})
	if r := call(t, set, "slow__wait", `{"ms":300}`); r.IsError || r.Text != "waited" {
		t.Errorf("a call within the timeout: %+v", r)
	}
	if r := call(t, set, "slow__wait", `{"ms":60000}`); !r.IsError || !strings.Contains(r.Text, "did not answer within 1.5s and was cancelled") {
		t.Errorf("a call past the timeout: %+v", r)
	}
}
