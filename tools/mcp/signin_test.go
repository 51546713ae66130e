package mcp

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
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

			browse, visits := browser()
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

// A server of protocol 2026-07-28 only behind the authorization server
// signs in and falls forward to that revision: whether it guards the
// 2025-11-25 initialize too (its refusal comes after the sign-in) or lets
// it through and refuses it, guarding only the revision's requests (the
// server/discover probe's 401, which mcp-go takes for an older server and
// answers with initialize, must still bring the sign-in). Before, both
// ended the start ("likely a legacy SSE server").
func TestSignInThenModernOnlyServer(t *testing.T) {
	for _, tc := range []struct {
		name string
		open []string
	}{
		{"initialize guarded", nil},
		{"initialize open", []string{"initialize"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &modernOnly{}
			as := oauthtest.New(t, s.handler())
			as.OpenMethods = tc.open
			browse, visits := browser()
			srv := config.MCPServer{Name: "modern", Type: config.MCPHTTP, URL: as.ResourceURL}
			dir := t.TempDir()
			_, _, errs := startManager(t, Options{OAuth: oauth.Options{Dir: dir}}, srv)
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), "agent mcp login modern") {
				t.Fatalf("without a browser: %v, want the line naming agent mcp login", errs)
			}
			m, _, errs := startManager(t, Options{OAuth: oauth.Options{Dir: dir, Prompt: browse}}, srv)
			if len(errs) != 0 || visits.Load() != 1 {
				t.Fatalf("start: %v (visits %d)\n%q", errs, visits.Load(), as.Log())
			}
			set := register(t, m)
			if r := call(t, set, ToolName("modern", "echo"), `{"message":"hi"}`); r.IsError || !strings.Contains(r.Text, "echo: hi") {
				t.Fatalf("call: %+v", r)
			}
		})
	}
}

// A server that moves to another authorization server during the start
// (its first signed-in request is the last the old one's token serves,
// as the conformance suite's authorization-server-migration does): the
// start signs in a second time, at the new server, and connects; a server
// that just refuses the token it gave gets one sign-in (TestSignInAtStart).
func TestSignInAgainWhenTheServerMovesDuringTheStart(t *testing.T) {
	s := server.NewMCPServer("remote", "1.0.0")
	s.AddTool(mcpgo.NewTool("whoami", mcpgo.WithDescription("Who is signed in")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("signed in"), nil
		})
	inner := server.NewStreamableHTTPServer(s)
	var as1, as2 *oauthtest.Server
	var once sync.Once
	as1 = oauthtest.New(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { as1.MoveTo(as2) })
		inner.ServeHTTP(w, r)
	}))
	as2 = oauthtest.New(t, nil)
	as2.ResourceURL = as1.ResourceURL
	browse, visits := browser()
	srv := config.MCPServer{Name: "remote", Type: config.MCPHTTP, URL: as1.ResourceURL}
	m, _, errs := startManager(t, Options{OAuth: oauth.Options{Dir: t.TempDir(), Prompt: browse}}, srv)
	if len(errs) != 0 || visits.Load() != 2 {
		t.Fatalf("start: %v (visits %d, want 2)\nold: %q\nnew: %q", errs, visits.Load(), as1.Log(), as2.Log())
	}
	if !slices.Contains(as2.Log(), "POST /register -> 201") {
		t.Errorf("no registration at the new authorization server: %q", as2.Log())
	}
	set := register(t, m)
	if r := call(t, set, "remote__whoami", `{}`); r.Text != "signed in" || r.IsError {
		t.Fatalf("call: %+v", r)
	}
}

// browser is a user who follows every sign-in link at once (in the
// background, as a browser would), and how many links it was given.
func browser() (func(server, url string), *atomic.Int32) {
	visits := new(atomic.Int32)
	return func(_, u string) {
		visits.Add(1)
		go func() {
			if resp, err := http.Get(u); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}, visits
}
