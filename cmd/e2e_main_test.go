package cmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/internal/testgate"
)

// TestMain lets the test binary double as a small stdio MCP server (a
// weather and a calendar service), so the end-to-end tests start a real MCP
// server process without anything installed.
func TestMain(m *testing.M) {
	if os.Getenv("AGENT_TEST_MCP_SERVER") == "1" {
		serveTestMCP()
		return
	}
	if os.Getenv("AGENT_TEST_BROWSER") == "1" && len(os.Args) == 2 && strings.HasPrefix(os.Args[1], "http") {
		// The test binary as $BROWSER: it follows the sign-in URL's
		// redirects to the agent's listener, as a browser would.
		os.Exit(followURL(os.Args[1:]))
	}
	if os.Getenv("AGENT_TEST_HOLD_TYPEAHEAD") == "1" {
		holdTypeAheadChild()
	}
	if os.Getenv("AGENT_TEST_AS_AGENT") == "1" {
		// The test binary runs as the agent command itself, in a real
		// terminal, for the tmux end-to-end tests.
		app.ExitsAfterClose = true                           // as main does
		ctx, stop := app.SignalContext(context.Background()) // as main does
		code := Execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
		stop()
		os.Exit(code)
	}
	// Fails when a goroutine outlives the tests; regexp2's match-timeout
	// clock (under the tokenizer, tools/tokens) is the library's and ends
	// on its own.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"),
		// bubbletea's Tick has no cancel: a tick the program scheduled
		// before it quit (cursor blink, refresh) waits out its timer, with
		// the batch that ran it, then ends on its own.
		goleak.IgnoreAnyFunction("charm.land/bubbletea/v2.Tick.func1"),
		goleak.IgnoreAnyFunction("charm.land/bubbletea/v2.(*Program).execBatchMsg"),
		// oauth.OpenBrowser does not wait for the browser (it outlives the
		// sign-in): its reaper waits for $BROWSER, here this test binary
		// following the sign-in URL, whose exit under -race and load can
		// come after goleak's last retry.
		goleak.IgnoreAnyFunction("github.com/agent-dev/agent/tools/mcp/oauth.OpenBrowser.func1"))
}

// addInteractive gives the test server a prompt (review FILE) and a tool
// that asks the user for a form (book_table: elicitation/create).
func addInteractive(s *server.MCPServer) {
	s.AddPrompt(mcpgo.NewPrompt("review", mcpgo.WithPromptDescription("Review a file"),
		mcpgo.WithArgument("file", mcpgo.RequiredArgument(), mcpgo.ArgumentDescription("the file to review"))),
		func(_ context.Context, r mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return mcpgo.NewGetPromptResult("review", []mcpgo.PromptMessage{
				mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent("Review "+r.Params.Arguments["file"]+" carefully.")),
			}), nil
		})
	// link_account needs the user at a URL first (-32042), once.
	var linked atomic.Bool
	s.AddTool(mcpgo.NewTool("link_account", mcpgo.WithDescription("Link the user's bank account")),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if linked.Swap(true) {
				return mcpgo.NewToolResultText("account linked"), nil
			}
			return nil, mcpgo.URLElicitationRequiredError{Elicitations: []mcpgo.ElicitationParams{{Mode: mcpgo.ElicitationModeURL,
				ElicitationID: "link-1", URL: "https://bank.example/connect?elicitation=link-1", Message: "Sign in to your bank to link it."}}}
		})
	s.AddTool(mcpgo.NewTool("book_table", mcpgo.WithDescription("Book a table at the restaurant")),
		func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var req mcpgo.ElicitationRequest
			req.Params.Message = "Who is the booking for?"
			req.Params.RequestedSchema = map[string]any{"type": "object", "required": []string{"name"}, "properties": map[string]any{
				"name":   map[string]any{"type": "string", "title": "Name"},
				"guests": map[string]any{"type": "integer", "title": "Guests", "default": 2, "minimum": 1},
			}}
			res, err := s.RequestElicitation(ctx, req)
			if err != nil {
				return nil, err
			}
			if res.Action != mcpgo.ElicitationResponseActionAccept {
				return mcpgo.NewToolResultText("booking " + string(res.Action) + "d"), nil
			}
			c, _ := res.Content.(map[string]any)
			return mcpgo.NewToolResultText(fmt.Sprintf("booked for %v, %v guests", c["name"], c["guests"])), nil
		})
}

func serveTestMCP() {
	if gate := os.Getenv("AGENT_TEST_MCP_GATE"); gate != "" {
		// A slow server whose start the test decides: it serves once the
		// test opens the gate.
		state, err := testgate.Wait(gate, 2*time.Minute)
		if err != nil || state == testgate.Failed {
			fmt.Fprintln(os.Stderr, "fatal: the gate says fail", err)
			os.Exit(3)
		}
	}
	opts := []server.ServerOption{server.WithToolCapabilities(true)}
	interactive := os.Getenv("AGENT_TEST_MCP_INTERACTIVE") == "1"
	if interactive {
		opts = append(opts, server.WithPromptCapabilities(true), server.WithElicitation())
	}
	s := server.NewMCPServer("testtools", "1.0.0", opts...)
	if interactive {
		addInteractive(s)
	}
	if f := os.Getenv("AGENT_TEST_MCP_EXTRA"); f != "" {
		// One more tool, named in that file when it exists: a server whose
		// list changes between runs with the same config.
		if name, err := os.ReadFile(f); err == nil {
			s.AddTool(mcpgo.NewTool(strings.TrimSpace(string(name)), mcpgo.WithDescription("Added since the list was cached")),
				func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
					return mcpgo.NewToolResultText("new"), nil
				})
		}
	}
	text := func(f func(mcpgo.CallToolRequest) string) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(f(req)), nil
		}
	}
	// AGENT_TEST_MCP_READONLY=1: get_weather says it is read-only (the
	// others keep mcp-go's defaults: not read-only, destructive).
	s.AddTool(mcpgo.NewTool("get_weather",
		mcpgo.WithDescription("Get the current weather forecast and temperature for a city"),
		mcpgo.WithReadOnlyHintAnnotation(os.Getenv("AGENT_TEST_MCP_READONLY") == "1"),
		mcpgo.WithString("city", mcpgo.Required(), mcpgo.Description("City name, e.g. Berlin"))),
		text(func(r mcpgo.CallToolRequest) string {
			return fmt.Sprintf("Weather in %s: 21°C, sunny", r.GetString("city", "?"))
		}))
	s.AddTool(mcpgo.NewTool("list_events",
		mcpgo.WithDescription("List calendar events for a day"),
		mcpgo.WithString("date", mcpgo.Required(), mcpgo.Description("ISO date"))),
		text(func(r mcpgo.CallToolRequest) string { return "no events on " + r.GetString("date", "?") }))
	s.AddTool(mcpgo.NewTool("convert_currency",
		mcpgo.WithDescription("Convert an amount between currencies using the exchange rate"),
		mcpgo.WithNumber("amount", mcpgo.Required()), mcpgo.WithString("from", mcpgo.Required()), mcpgo.WithString("to", mcpgo.Required())),
		text(func(r mcpgo.CallToolRequest) string { return "converted" }))
	s.AddTool(mcpgo.NewTool("send_email",
		mcpgo.WithDescription("Send an email message to a recipient"),
		mcpgo.WithString("to", mcpgo.Required()), mcpgo.WithString("body", mcpgo.Required())),
		text(func(r mcpgo.CallToolRequest) string { return "sent" }))
	if n, _ := strconv.Atoi(os.Getenv("AGENT_TEST_MCP_BULK")); n > 0 {
		// A server of many tools (over a provider's tool limit).
		for i := range n {
			s.AddTool(mcpgo.NewTool(fmt.Sprintf("bulk_%03d", i), mcpgo.WithDescription(fmt.Sprintf("Bulk operation number %d", i)),
				mcpgo.WithString("id", mcpgo.Required())),
				text(func(r mcpgo.CallToolRequest) string { return "done" }))
		}
	}
	if os.Getenv("AGENT_TEST_MCP_BAD_SCHEMA") == "1" {
		// One tool with a schema no provider accepts (a typo in "type").
		s.AddTool(mcpgo.NewToolWithRawSchema("broken_report", "Build a report", []byte(`{"type":"objekt","properties":{"q":{"type":"string"}}}`)),
			text(func(r mcpgo.CallToolRequest) string { return "report" }))
	}
	if gate := os.Getenv("AGENT_TEST_MCP_SAMPLE_GATE"); gate != "" {
		// ask_model asks the client to sample its model, and the process
		// dies, its request unanswered, once the test opens the gate.
		s.EnableSampling()
		s.AddTool(mcpgo.NewTool("ask_model", mcpgo.WithDescription("Ask the client's model for a haiku")),
			func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				go func() {
					_, _ = testgate.Wait(gate, 2*time.Minute)
					os.Exit(4)
				}()
				//nolint:staticcheck // servers before protocol 2026-07-28 still sample, and the agent answers them
				_, err := s.RequestSampling(ctx, mcpgo.CreateMessageRequest{CreateMessageParams: mcpgo.CreateMessageParams{MaxTokens: 20,
					Messages: []mcpgo.SamplingMessage{{Role: mcpgo.RoleUser, Content: mcpgo.NewTextContent("Write a haiku.")}}}})
				if err != nil {
					return mcpgo.NewToolResultError(err.Error()), nil
				}
				return mcpgo.NewToolResultText("sampled"), nil
			})
	}
	if f := os.Getenv("AGENT_TEST_MCP_PIDFILE"); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if os.Getenv("AGENT_TEST_MCP_LINGER") == "1" {
		// A server that ignores the end of its input: only a signal ends
		// it (SIGTERM as by default, SIGKILL regardless).
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		<-term
	}
}
