package cmd

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// #32: a long-running tool's progress reaches stream-json, with nothing
// installed: an HTTP MCP server whose tool reports three steps against the
// call's _meta.progressToken (it fails the call without one). The test
// with server-everything does the same over stdio where npm is there, and
// counts every step.
func TestPrintProgressInStreamJSON(t *testing.T) {
	isolate(t)
	s := server.NewMCPServer("slow", "1.0.0")
	s.AddTool(mcpgo.NewTool("count", mcpgo.WithDescription("Count to three, reporting each step")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
				return mcpgo.NewToolResultError("the call carries no _meta.progressToken"), nil
			}
			for i := 1; i <= 3; i++ {
				err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress", map[string]any{
					"progressToken": req.Params.Meta.ProgressToken, "progress": i, "total": 3, "message": fmt.Sprintf("step %d", i)})
				if err != nil {
					return nil, err
				}
			}
			return mcpgo.NewToolResultText("counted to 3"), nil
		})
	// No session stream (GET answers 405, which the client takes as
	// "not offered"): mcp-go's server hands each notification to whichever
	// of the session stream and the call's own stream takes it first, and
	// one sent on the session stream can reach the agent after the call's
	// answer, when there is no call left to show it on: at load all three
	// did, and the test saw no step. On the call's stream they come before
	// the answer.
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithDisableStreaming(true)))
	t.Cleanup(hs.Close)
	cfg := writeJSON(t, "mcp.json", map[string]any{"mcpServers": map[string]any{"slow": map[string]any{"type": "http", "url": hs.URL + "/mcp"}}})
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "slow__count", Input: map[string]any{}},
		anthropictest.Turn{Text: "Counted."}))
	res := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}, "-p", "count to three",
		"--provider", "anthropic", "--base-url", fake.URL, "--mcp-config", cfg, "--mcp", "slow",
		"--db", filepath.Join(t.TempDir(), "agent.db"), "--output-format", "stream-json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s\n%s", res.code, res.stderr, res.stdout)
	}
	var progress []map[string]any
	var result string
	for _, ev := range streamEvents(t, res.stdout) {
		switch ev["type"] {
		case "tool_progress":
			if result != "" {
				t.Errorf("a step after the call finished: %v", ev)
			}
			progress = append(progress, ev)
		case "tool_call_finished":
			tl, _ := ev["tool"].(map[string]any)
			result, _ = tl["result"].(string)
		}
	}
	if result != "counted to 3" {
		t.Fatalf("tool result %q\n%s", result, res.stdout)
	}
	// The steps are shown while the call runs, in order, each whole. Not
	// always all three: mcp-go's server (v1.2.1) drops a notification its
	// forwarder took just as the call's answer was being written.
	if len(progress) == 0 {
		t.Fatalf("no tool_progress event:\n%s", res.stdout)
	}
	last := 0.0
	for _, p := range progress {
		n, _ := p["progress"].(float64)
		id, _ := p["id"].(string)
		if id == "" || n <= last || p["total"] != float64(3) || p["message"] != fmt.Sprintf("step %d", int(n)) {
			t.Errorf("progress %v after %v", p, last)
		}
		last = n
	}
}
