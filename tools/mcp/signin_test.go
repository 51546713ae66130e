package mcp

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tools/mcp/oauth/oauthtest"
)

// A remote server behind the strict fake authorization server, over both
// remote transports: the start fails for want of a sign-in, the manager
// signs in through the "browser" outside the start's timeouts, connects
// again, and the tools work; without a browser the start fails with the
// line naming `agent mcp login`.
func TestSignInAtStart(t *testing.T) {
	for _, tc := range []struct{ transport, path string }{
		{config.MCPHTTP, "/mcp"},
		{config.MCPSSE, "/mcp/sse"},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			s := server.NewMCPServer("remote", "1.0.0")
			s.AddTool(mcpgo.NewTool("whoami", mcpgo.WithDescription("Who is signed in")),
				func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
					return mcpgo.NewToolResultText("signed in"), nil
				})
			var h http.Handler
			as := oauthtest.New(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
			if tc.transport == config.MCPSSE {
				h = server.NewSSEServer(s, server.WithBaseURL(as.URL), server.WithStaticBasePath("/mcp"))
			} else {
				h = server.NewStreamableHTTPServer(s)
			}
			srv := config.MCPServer{Name: "remote", Type: tc.transport, URL: as.URL + tc.path}
			dir := t.TempDir()

			_, _, errs := startManager(t, Options{OAuth: oauth.Options{Dir: dir}}, srv)
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), "agent mcp login remote") {
				t.Fatalf("without a browser: %v", errs)
			}

			var visits atomic.Int32
			browse := func(_, u string) {
				visits.Add(1)
				go func() {
					if resp, err := http.Get(u); err == nil {
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				}()
			}
			m, _, errs := startManager(t, Options{OAuth: oauth.Options{Dir: dir, Prompt: browse}}, srv)
			if len(errs) != 0 || visits.Load() != 1 {
				t.Fatalf("with a browser: %v (visits %d)\n%q", errs, visits.Load(), as.Log())
			}
			set := tools.NewSet()
			if err := m.Register(set, false); err != nil {
				t.Fatal(err)
			}
			if r := call(t, set, "remote__whoami", `{}`); r.Text != "signed in" || r.IsError {
				t.Fatalf("call: %+v", r)
			}
		})
	}
}
