package mcp

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// runLingeringServer serves one tool over stdio and, when its input
// closes, keeps running as a server whose event loop a timer keeps alive
// does. On SIGTERM it writes "term" to the file AGENT_MCP_TEST_MARK names
// and exits; a stubborn one ignores SIGTERM and ends only when killed.
func runLingeringServer(stubborn bool) {
	terms := make(chan os.Signal, 1)
	if stubborn {
		signal.Ignore(syscall.SIGTERM)
	} else {
		signal.Notify(terms, syscall.SIGTERM)
	}
	s := server.NewMCPServer("lingers", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcpgo.NewTool("echo"), func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("echo"), nil
	})
	_ = server.NewStdioServer(s).Listen(context.Background(), os.Stdin, os.Stdout)
	// The input closed: a well-behaved server would exit here.
	<-terms // never, for a stubborn one: it waits to be killed
	_ = os.WriteFile(os.Getenv("AGENT_MCP_TEST_MARK"), []byte("term"), 0o600)
	os.Exit(0)
}
