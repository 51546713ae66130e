package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
)

// deadlineHost answers sampling and notes how long the request had.
type deadlineHost struct {
	ctxHost
	left chan time.Duration
}

func (h *deadlineHost) Sample(ctx context.Context, _ SamplingRequest) (SamplingAnswer, error) {
	d, ok := ctx.Deadline()
	left := time.Duration(-1)
	if ok {
		left = time.Until(d)
	}
	h.left <- left
	return SamplingAnswer{Model: "m", Text: "a haiku", StopReason: "endTurn"}, nil
}

// A plain sampling request over streamable HTTP is bounded by the tool's
// timeout (90 s here), not mcp-go's 30 s, and its answer, sent by the
// agent, reaches the tool that asked.
func TestHTTPSamplingFollowsToolTimeout(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("ask", "1.0.0", server.WithToolCapabilities(true))
	s.EnableSampling()
	s.AddTool(mcpgo.NewTool("ask"), func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		//nolint:staticcheck // servers before protocol 2026-07-28 still sample, and the agent answers them
		res, err := s.RequestSampling(ctx, mcpgo.CreateMessageRequest{CreateMessageParams: mcpgo.CreateMessageParams{MaxTokens: 20,
			Messages: []mcpgo.SamplingMessage{{Role: mcpgo.RoleUser, Content: mcpgo.NewTextContent("Write a haiku.")}}}})
		if err != nil {
			return mcpgo.NewToolResultError(err.Error()), nil
		}
		text, _ := res.Content.(mcpgo.TextContent)
		return mcpgo.NewToolResultText("sampled: " + text.Text), nil
	})
	h := &deadlineHost{left: make(chan time.Duration, 1)}
	_, set := startRegistered(t, Options{Host: h, ToolTimeout: 90 * time.Second}, config.MCPServer{Name: "ask", Type: config.MCPHTTP, URL: serveStreamable(t, s)})
	tl, _ := set.Lookup("ask__ask")
	res, err := tl.Exec(t.Context(), nil)
	if err != nil || !strings.Contains(res.Text, "sampled: a haiku") {
		t.Fatalf("the tool got no sampled answer: %v %v", res, err)
	}
	if left := <-h.left; left < 60*time.Second {
		t.Errorf("the sampling request had %v, want the tool's 90 s (mcp-go gives 30 s)", left)
	}
}
