package mcp

import (
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
)

// extrasServer offers a tool, a resource, a template and a prompt whose
// list can change (prompts/list_changed).
func extrasServer() *server.MCPServer {
	s := server.NewMCPServer("docs", "1.0.0", server.WithToolCapabilities(true),
		server.WithResourceCapabilities(false, true), server.WithPromptCapabilities(true), server.WithCompletions())
	s.AddTool(mcpgo.NewTool("search", mcpgo.WithDescription("Searches the docs")),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("found"), nil
		})
	s.AddResource(mcpgo.NewResource("docs://readme", "readme", mcpgo.WithMIMEType("text/plain")),
		func(_ context.Context, r mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: r.Params.URI, MIMEType: "text/plain", Text: "read me"}}, nil
		})
	s.AddResourceTemplate(mcpgo.NewResourceTemplate("docs://page/{name}", "page"),
		func(_ context.Context, r mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: r.Params.URI, Text: "a page"}}, nil
		})
	s.AddPrompt(mcpgo.NewPrompt("review", mcpgo.WithPromptDescription("Review a page"), mcpgo.WithArgument("page", mcpgo.RequiredArgument())),
		func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return mcpgo.NewGetPromptResult("review", []mcpgo.PromptMessage{mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent("Review it."))}), nil
		})
	return s
}

func promptNames(ps []Prompt) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Server+":"+p.Name)
	}
	return out
}

// TestCacheKeepsResourcesAndPrompts: a cached server's resources,
// templates and prompts are known in the next run before (and without)
// its start, read_resource is offered, and a list_changed updates the
// cache.
func TestCacheKeepsResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	srv := extrasServer()
	ts := httptest.NewServer(server.NewStreamableHTTPServer(srv))
	cfg := config.MCPServer{Name: "docs", Type: config.MCPHTTP, URL: ts.URL + "/mcp"}
	cache := newMemCache()

	// Run 1 lists everything, then the server adds a prompt.
	m, ev, errs := startManager(t, Options{Cache: cache}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	srv.AddPrompt(mcpgo.NewPrompt("summarize", mcpgo.WithPromptDescription("Summarize a page")),
		func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return mcpgo.NewGetPromptResult("summarize", nil), nil
		})
	ev.wait(t, "prompts/list_changed", func(e Event) bool { return e.Kind == EventListChanged })
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	ts.Close() // the server is gone: run 2 knows it only from the cache

	// Run 2 starts nothing (DeferStart) and knows the lot.
	m2, _, errs := startManager(t, Options{Cache: cache, DeferStart: true}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m2.Register(set, false); err != nil {
		t.Fatal(err)
	}
	if got := promptNames(m2.Prompts()); !slices.Equal(got, []string{"docs:review", "docs:summarize"}) {
		t.Errorf("cached prompts %v, want review and summarize (the list_changed one)", got)
	}
	if ps := m2.Prompts(); len(ps) == 0 || len(ps[0].Arguments) != 1 || ps[0].Arguments[0].Name != "page" || !ps[0].Arguments[0].Required {
		t.Errorf("cached prompt arguments: %+v", ps)
	}
	rs := m2.Resources()
	if len(rs) != 2 || rs[0].URI != "docs://readme" || rs[0].MIMEType != "text/plain" || rs[1].Template != "docs://page/{name}" {
		t.Errorf("cached resources %+v", rs)
	}
	if _, ok := set.Lookup(ReadResourceTool); !ok {
		t.Error("read_resource is not offered for a cached server with resources")
	}
	st := m2.Status()[0]
	if st.Prompts != 2 || st.Resources != 2 || st.State == StateRunning {
		t.Errorf("status %+v: want 2 prompts, 2 resources, not started", st)
	}
	if !m2.conn("docs").ex.completions {
		t.Error("whether the server completes arguments was not cached")
	}
}

// TestCacheDropsWhatTheServerNoLongerOffers: a server that stops offering
// prompts loses its cached ones once it is up.
func TestCacheDropsWhatTheServerNoLongerOffers(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(server.NewStreamableHTTPServer(extrasServer()))
	cfg := config.MCPServer{Name: "docs", Type: config.MCPHTTP, URL: ts.URL + "/mcp"}
	cache := newMemCache()
	fillCache(t, cache, cfg)
	ts.Close()

	bare := server.NewMCPServer("docs", "2.0.0", server.WithToolCapabilities(true))
	bare.AddTool(mcpgo.NewTool("search"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("found"), nil
	})
	ts2 := httptest.NewUnstartedServer(server.NewStreamableHTTPServer(bare))
	ts2.Listener.Close()
	ts2.Listener = listenOn(t, ts.Listener.Addr().String())
	ts2.Start()
	t.Cleanup(ts2.Close)

	cfg.Start = config.StartEager // a cached server starts at launch only when eager
	m, _, errs := startManager(t, Options{Cache: cache}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	m.conn("docs").waitReady(t)
	if ps, rs := m.Prompts(), m.Resources(); len(ps)+len(rs) != 0 {
		t.Errorf("prompts %v and resources %v kept after the server stopped offering them", ps, rs)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	_, _, extras, err := decodeCatalogExtras(cache.only(t).Tools)
	var x cachedExtras
	if err == nil {
		err = json.Unmarshal(extras, &x)
	}
	if err != nil || len(x.Prompts)+len(x.Resources)+len(x.Templates) != 0 || x.Completions {
		t.Errorf("the cache still holds %s (%v)", extras, err)
	}
}

// listenOn listens on addr again (the address a closed test server had, so
// the server's config, and its cache key, stay the same).
func listenOn(t *testing.T, addr string) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	return l
}

// waitReady waits for the connection's first start to end.
func (c *conn) waitReady(t *testing.T) {
	t.Helper()
	select {
	case <-c.ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not start within 30 s")
	}
}
