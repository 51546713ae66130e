package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// countedMCP serves testMCPServer over streamable HTTP and counts the
// requests it gets: a server a command connects to is counted, one it
// answers for from the catalog cache is not.
func countedMCP(t *testing.T) (url string, requests *atomic.Int64) {
	t.Helper()
	requests = new(atomic.Int64)
	h := server.NewStreamableHTTPServer(testMCPServer())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", requests
}

// listed is what a listing command said of server tt: its tool count and,
// where the command has one, its status.
type listed struct {
	tools int
	state mcptools.State
}

// listingCommands are agent tools search, agent tools and agent mcp list
// as app runs them, each reporting server tt.
var listingCommands = []struct {
	name string
	run  func(ctx context.Context, t *testing.T, s Settings, getenv func(string) string) listed
}{
	{"tools search", func(ctx context.Context, t *testing.T, s Settings, _ func(string) string) listed {
		ts, warnings, err := MCPTools(ctx, s, "test")
		if err != nil || len(warnings) > 0 {
			t.Fatalf("MCPTools: %v %v", warnings, err)
		}
		return listed{tools: len(ts)}
	}},
	{"tools", func(ctx context.Context, t *testing.T, s Settings, getenv func(string) string) listed {
		rep, err := BuildToolsReport(ctx, s, Options{Getenv: getenv, Version: "test"})
		if err != nil {
			t.Fatalf("BuildToolsReport: %v", err)
		}
		for _, st := range rep.Servers {
			if st.Server == "tt" {
				state := mcptools.StateRunning
				if st.Cached {
					state = stateCached
				}
				return listed{st.Tools, state}
			}
		}
		t.Fatalf("agent tools lists no tt: %+v", rep.Servers)
		return listed{}
	}},
	{"mcp list", func(ctx context.Context, t *testing.T, s Settings, _ func(string) string) listed {
		entries, err := MCPList(ctx, s, false, 30*time.Second, "test")
		if err != nil {
			t.Fatalf("MCPList: %v", err)
		}
		for _, e := range entries {
			if e.Name == "tt" {
				if len(e.ToolNames) != e.Tools {
					t.Errorf("mcp list: %d tools, %d named", e.Tools, len(e.ToolNames))
				}
				return listed{e.Tools, e.State}
			}
		}
		t.Fatalf("agent mcp list lists no tt: %+v", entries)
		return listed{}
	}},
}

// The listing commands answer from a cached catalog without starting its
// server, and start it when its entry changed since it was cached, when
// it says "start": "eager", with --refresh and with --no-cache; what a
// started server lists is cached for the next command (but with
// --no-cache), as a session caches it.
func TestListingCommandsStartOnlyWhatTheCacheCannotAnswer(t *testing.T) {
	cases := []struct {
		name string
		// entry is added to tt's config entry after it was cached.
		entry            map[string]any
		refresh, noCache bool
		// starts: the command connects tt; thenStarts: so does a plain
		// command after it.
		starts, thenStarts bool
	}{
		{name: "cached"},
		{name: "changed entry", entry: map[string]any{"headers": map[string]string{"Authorization": "Bearer u"}}, starts: true},
		{name: "eager", entry: map[string]any{"start": "eager"}, starts: true, thenStarts: true},
		{name: "lazy said", entry: map[string]any{"start": "lazy"}},
		{name: "refresh", refresh: true, starts: true},
		{name: "no cache", noCache: true, starts: true},
	}
	for _, cmd := range listingCommands {
		for _, c := range cases {
			t.Run(cmd.name+"/"+c.name, func(t *testing.T) {
				f := newFixture(t, false)
				url, requests := countedMCP(t)
				cfg := filepath.Join(t.TempDir(), "mcp.json")
				// With a token of its own, tt signs in without OAuth:
				// agent mcp list connects a remote server with no
				// sign-in kept (cmd's TestMCPLoginListLogout).
				entry := map[string]any{"type": "http", "url": url, "headers": map[string]string{"Authorization": "Bearer t"}}
				writeServers := func() {
					b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"tt": entry}})
					if err != nil {
						t.Fatal(err)
					}
					writeFile(t, cfg, string(b))
				}
				writeServers()
				f.flags.MCPConfig = cfg
				run := func(refresh, noCache bool) (listed, bool) {
					t.Helper()
					fl := f.flags
					fl.Refresh, fl.NoCache = refresh, noCache
					s, err := Load(fl, f.getenv)
					if err != nil {
						t.Fatal(err)
					}
					before := requests.Load()
					got := cmd.run(t.Context(), t, s, f.getenv)
					return got, requests.Load() > before
				}
				// Nothing cached: tt starts, and its catalog is cached.
				if got, started := run(false, false); !started || got.tools != 2 {
					t.Fatalf("first listing: started %v, %+v; want tt started with 2 tools", started, got)
				}
				for k, v := range c.entry {
					entry[k] = v
				}
				writeServers()
				got, started := run(c.refresh, c.noCache)
				if started != c.starts || got.tools != 2 {
					t.Errorf("started %v with %d tools, want started %v with 2", started, got.tools, c.starts)
				}
				want := stateCached
				if c.starts {
					want = mcptools.StateRunning
				}
				if got.state != "" && got.state != want {
					t.Errorf("status %q, want %q", got.state, want)
				}
				if _, started := run(false, false); started != c.thenStarts {
					t.Errorf("the next listing started tt: %v, want %v", started, c.thenStarts)
				}
			})
		}
	}
}
