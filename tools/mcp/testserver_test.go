package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/internal/testgate"
)

// The edge-case servers are real processes: the test binary re-executed
// with AGENT_MCP_TEST_SERVER set runs an mcp-go server over stdio, so a
// crash is a real process exit and a hang a real silent peer.
const testServerEnv = "AGENT_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(testServerEnv); mode != "" {
		runTestServer(mode)
		os.Exit(0)
	}
	// Fails when a goroutine outlives the tests. mcp-go's in-process task
	// server (TestTaskTools) removes each task after its TTL with a
	// goroutine that sleeps that long and cannot be stopped: the fake
	// server's, not the client's.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/mark3labs/mcp-go/server.(*MCPServer).scheduleTaskCleanup"))
}

// rawSchema has the keys mcp-go's typed schema drops; it must reach the
// model byte for byte (after compaction).
const rawSchema = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","$defs":{"id":{"type":"string","pattern":"^[a-z]+$"}},"properties":{"target":{"anyOf":[{"$ref":"#/$defs/id"},{"type":"integer"}]}},"anyOf":[{"required":["target"]}],"additionalProperties":false,"description":"top-level description"}`

// testServerConfig returns the config of a re-executed test server.
func testServerConfig(t testing.TB, name, mode string) config.MCPServer {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return config.MCPServer{Name: name, Type: config.MCPStdio, Command: exe, Args: []string{"-test.run=^$"},
		Env: map[string]string{testServerEnv: mode}, Source: "test"}
}

func runTestServer(mode string) {
	switch mode {
	case "catalog-http":
		serveCatalogHTTP() // httplist_bench_test.go
		return
	case "silent":
		// Reads requests and never answers: a server that hangs at start.
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: MISSING_TOKEN is not set")
		os.Exit(2)
	case "gated":
		// Starts only once the test creates the gate file: a slow server
		// whose start the test decides, without timing anything.
		if _, err := testgate.Wait(os.Getenv("AGENT_MCP_TEST_GATE"), 2*time.Minute); err != nil {
			fmt.Fprintln(os.Stderr, "fatal:", err)
			os.Exit(3)
		}
	case "garbage-init":
		// Answers initialize with something that is not JSON.
		fmt.Println("Starting server... (not JSON)")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	case "talker":
		// Talks on stderr, never answers on stdout.
		fmt.Fprintln(os.Stderr, "listening")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	case "huge":
		// Answers its one tool with 32 MB of text (#26).
		s := server.NewMCPServer("huge", "1.0.0", server.WithToolCapabilities(true))
		s.AddTool(mcpgo.NewTool("flood"), func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(strings.Repeat("x", 32<<20)), nil
		})
		_ = server.ServeStdio(s)
		return
	case "tasks":
		_ = server.ServeStdio(taskServer(nil, nil))
		return
	case "burst":
		runBurstServer() // listburst_test.go
		return
	case "lingers", "stubborn":
		runLingeringServer(mode == "stubborn") // shutdown_test.go
		return
	case "modern-only":
		runModernOnlyStdio() // modern_test.go
		return
	case "ask":
		runAskStdio() // protocol_test.go
		return
	case "stderr-banner":
		// The edge server with a start banner on stderr, as the npm
		// servers have ("Knowledge Graph MCP Server running on stdio").
		fmt.Fprintln(os.Stderr, "Edge MCP Server running on stdio")
	case "freezer", "garbage-call", "banner":
		runHardeningServer(mode)
		return
	case "slow":
		// Starts like a server that loads something for a while without
		// using the CPU (a network fetch), then serves as "tools".
		// Only BenchmarkStartConcurrency uses it: the wait is what it
		// measures, not a test waiting for a condition.
		d, _ := time.ParseDuration(os.Getenv("AGENT_MCP_TEST_DELAY"))
		<-time.After(d)
	}
	s := server.NewMCPServer("edge", "1.0.0", server.WithToolCapabilities(true), server.WithPaginationLimit(3),
		server.WithInstructions("Edge cases for the agent's MCP client."))
	text := func(f func(req mcpgo.CallToolRequest) string) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(f(req)), nil
		}
	}
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithDescription("Echoes the message"), mcpgo.WithString("message", mcpgo.Required())),
		text(func(req mcpgo.CallToolRequest) string { return "echo: " + req.GetString("message", "") }))
	s.AddTool(mcpgo.NewToolWithRawSchema("raw_schema", "Takes a schema mcp-go cannot type", json.RawMessage(rawSchema)),
		text(func(req mcpgo.CallToolRequest) string { return "ok" }))
	s.AddTool(mcpgo.NewTool("big", mcpgo.WithDescription("Returns 1 MB of text")),
		text(func(req mcpgo.CallToolRequest) string { return strings.Repeat("0123456789abcdef", 1<<16) }))
	s.AddTool(mcpgo.NewTool("hang", mcpgo.WithDescription("Never answers")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.AddTool(mcpgo.NewTool("crash", mcpgo.WithDescription("Exits the server process")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "panic: crash tool called")
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(mcpgo.NewTool("fail", mcpgo.WithDescription("Answers with isError")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultError("the thing is broken"), nil
		})
	s.AddTool(mcpgo.NewTool("mixed", mcpgo.WithDescription("Text, image and resources")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			png := base64.StdEncoding.EncodeToString([]byte("\x89PNG fake"))
			return &mcpgo.CallToolResult{Content: []mcpgo.Content{
				mcpgo.NewTextContent("here you go"),
				mcpgo.NewImageContent(png, "image/png"),
				mcpgo.NewEmbeddedResource(mcpgo.TextResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "file body"}),
				mcpgo.NewEmbeddedResource(mcpgo.BlobResourceContents{URI: "file:///a.bin", MIMEType: "application/octet-stream", Blob: base64.StdEncoding.EncodeToString(make([]byte, 300))}),
			}}, nil
		})
	s.AddTool(mcpgo.NewTool("structured", mcpgo.WithDescription("Only structuredContent")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultStructuredOnly(map[string]any{"count": 3, "items": []string{"a", "b"}}), nil
		})
	iconTool := mcpgo.NewTool("with_icons", mcpgo.WithDescription("Carries icons and annotations"),
		mcpgo.WithTitleAnnotation("Pretty"), mcpgo.WithReadOnlyHintAnnotation(true))
	iconTool.Icons = []mcpgo.Icon{{Src: "data:image/png;base64," + strings.Repeat("A", 2000), MIMEType: "image/png"}}
	s.AddTool(iconTool, text(func(req mcpgo.CallToolRequest) string { return "ok" }))
	s.AddTool(mcpgo.NewTool("add_tool", mcpgo.WithDescription("Adds a tool named by name (sends tools/list_changed)"), mcpgo.WithString("name", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			name := req.GetString("name", "")
			s.AddTool(mcpgo.NewTool(name, mcpgo.WithDescription("added at run time")), text(func(mcpgo.CallToolRequest) string { return "I am " + name }))
			return mcpgo.NewToolResultText("added " + name), nil
		})
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// edgeTools are the tools the edge server lists, sorted.
var edgeTools = []string{"add_tool", "big", "crash", "echo", "fail", "hang", "mixed", "raw_schema", "structured", "with_icons"}
