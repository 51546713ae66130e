//go:build unix

package mcp

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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

// TestCloseAsksLingeringServerToStop: a stdio server still running after
// its input closed is sent SIGTERM before the grace ends (the MCP
// lifecycle's stdio shutdown), instead of holding the agent's exit for the
// whole grace and then being killed; one that ignores SIGTERM is still
// killed. The grace is an hour in the first case, so only SIGTERM can end
// the server before Close returns; no timing is measured.
func TestCloseAsksLingeringServerToStop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode, want string
		grace      time.Duration
	}{
		{mode: "lingers", want: "exit status 0", grace: time.Hour},
		{mode: "stubborn", want: "signal: killed", grace: 100 * time.Millisecond},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			mark := filepath.Join(t.TempDir(), "mark")
			cfg := testServerConfig(t, "lingers", tc.mode)
			cfg.Env["AGENT_MCP_TEST_MARK"] = mark
			m, _, errs := startManager(t, Options{}, cfg)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			m.grace, m.termAfter = tc.grace, 10*time.Millisecond
			running := m.procs.running()
			if len(running) != 1 {
				t.Fatalf("%d processes running, want 1", len(running))
			}
			p := running[0]
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			<-p.exited
			if got := p.status(); got != tc.want {
				t.Errorf("server ended with %q, want %q", got, tc.want)
			}
			b, err := os.ReadFile(mark)
			switch {
			case tc.mode == "lingers" && string(b) != "term":
				t.Errorf("the server was not asked to stop with SIGTERM (mark %q, %v)", b, err)
			case tc.mode == "stubborn" && err == nil:
				t.Errorf("a server ignoring SIGTERM wrote %q", b)
			}
		})
	}
}
