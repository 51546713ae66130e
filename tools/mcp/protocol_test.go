package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
)

// askServer is a server whose tools ask the user through elicitation/create,
// a request of the server's own, as a tool written for protocol 2025-11-25
// does. mcp-go refuses that request inside the handler when the client
// speaks 2026-07-28; ask returns the refusal as its error (mcp-go answers
// -32603), ask_caught as an isError result. fail fails for a reason of
// its own.
func askServer() *server.MCPServer {
	s := server.NewMCPServer("ask", "1.0.0", server.WithToolCapabilities(false), server.WithElicitation())
	ask := func(ctx context.Context) (string, error) {
		var req mcpgo.ElicitationRequest
		req.Params.Message = "Your name?"
		req.Params.RequestedSchema = map[string]any{"type": "object", "properties": map[string]any{
			"name": map[string]any{"type": "string", "title": "Name"}}, "required": []string{"name"}}
		//nolint:staticcheck // the subject: a tool of 2025-11-25 that asks with a request of its own
		res, err := s.RequestElicitation(ctx, req)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("hello %v", res.Content.(map[string]any)["name"]), nil
	}
	s.AddTool(mcpgo.NewTool("ask"), func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		text, err := ask(ctx)
		if err != nil {
			return nil, err
		}
		return mcpgo.NewToolResultText(text), nil
	})
	s.AddTool(mcpgo.NewTool("ask_caught"), func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		text, err := ask(ctx)
		if err != nil {
			return mcpgo.NewToolResultError(err.Error()), nil
		}
		return mcpgo.NewToolResultText(text), nil
	})
	s.AddTool(mcpgo.NewTool("fail"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return nil, fmt.Errorf("the disk is full")
	})
	return s
}

// runAskStdio serves askServer over stdio, in either era.
func runAskStdio() {
	if err := server.ServeStdio(askServer()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// nameHost answers every form with the name Ada.
func nameHost() Host {
	return &ctxHost{elicit: func(context.Context, Elicitation) ElicitAnswer {
		return ElicitAnswer{Action: "accept", Content: map[string]any{"name": "Ada"}}
	}}
}

// A call's outcome in TestProtocolSetting.
const (
	answered = "answered" // the tool got its answer: hello Ada
	refused  = "refused"  // mcp-go refused the tool's request, and the call failed
)

// hintWords are in the hint a failed call of a server of both eras gets.
const hintWords = `"protocol": "2025-11-25" in the server's config may let it run`

// TestProtocolSetting: a server's "protocol" setting over streamable HTTP,
// against real mcp-go servers. "auto" speaks 2026-07-28 to a server of
// both eras, where a tool that elicits with a request of its own fails,
// and the failure names the setting (without it, the user could not know
// there was one); "2025-11-25" speaks initialize only, never probing, and
// the tool gets its answer; "2026-07-28" speaks only that revision and
// fails the start, in one line, of a server that does not. Before the
// setting, every case took "auto"'s path.
func TestProtocolSetting(t *testing.T) {
	t.Parallel()
	bothEras := func() http.Handler { return server.NewStreamableHTTPServer(askServer()) }
	legacyOnly := func() http.Handler { return legacyHTTP(askServer()) }
	for _, tc := range []struct {
		name     string
		handler  func() http.Handler
		protocol string
		startErr string   // the start's error; "" when it starts
		era      era      // the era it is spoken to in
		first    []string // the requests the start begins with
		ask      string   // answered or refused
		hint     bool     // a refused call names the setting
	}{
		{"both eras, unset", bothEras, "", "", eraModern, []string{"server/discover"}, refused, true},
		{"both eras, auto", bothEras, config.ProtocolAuto, "", eraModern, []string{"server/discover"}, refused, true},
		{"both eras, 2025-11-25", bothEras, config.ProtocolLegacy, "", eraLegacy, []string{"initialize", "notifications/initialized"}, answered, false},
		{"both eras, 2026-07-28", bothEras, config.ProtocolModern, "", eraModern, []string{"server/discover"}, refused, false},
		{"legacy only, auto", legacyOnly, config.ProtocolAuto, "", eraLegacy, []string{"server/discover", "initialize"}, answered, false},
		{"legacy only, 2025-11-25", legacyOnly, config.ProtocolLegacy, "", eraLegacy, []string{"initialize", "notifications/initialized"}, answered, false},
		{"legacy only, 2026-07-28", legacyOnly, config.ProtocolModern,
			`MCP server ask did not start: it does not speak protocol 2026-07-28, which its "protocol" setting asks for (server/discover: `, eraUnknown, []string{"server/discover"}, "", false},
		{"modern only, 2025-11-25", func() http.Handler { return (&modernOnly{}).handler() }, config.ProtocolLegacy,
			`MCP server ask did not start: initialize, protocol 2025-11-25 as its "protocol" setting asks, was refused with an HTTP 4xx: it may be a server of protocol 2026-07-28 only`,
			eraUnknown, []string{"initialize"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := &wire{next: tc.handler()}
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			srv := config.MCPServer{Name: "ask", Type: config.MCPHTTP, URL: ts.URL + "/mcp", Protocol: tc.protocol}
			m, _, errs := startManager(t, Options{Host: nameHost()}, srv)
			got := h.methods()
			if len(got) < len(tc.first) || !slices.Equal(got[:len(tc.first)], tc.first) {
				t.Errorf("requests %q, want them to begin %q", got, tc.first)
			}
			if tc.startErr != "" {
				if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.startErr) || strings.Contains(errs[0].Error(), "\n") {
					t.Fatalf("start errors %v, want one line beginning %q", errs, tc.startErr)
				}
				if tc.protocol == config.ProtocolModern && slices.Contains(got, "initialize") {
					t.Errorf("requests %q: a server set to 2026-07-28 was sent initialize", got)
				}
				if tc.protocol == config.ProtocolLegacy && slices.Contains(got, "server/discover") {
					t.Errorf("requests %q: a server set to 2025-11-25 was probed", got)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("start: %v (requests %q)", errs, got)
			}
			if e := m.conn("ask").getEra(); e != tc.era {
				t.Errorf("era %v, want %v", e, tc.era)
			}
			checkAsk(t, register(t, m), tc.ask, tc.hint)
		})
	}
}

// TestProtocolSettingStdio: the setting over stdio, against mcp-go's
// stdio server of both eras whose tools elicit. "auto" sends initialize
// first to a server whose era is not known, and its tools get their
// answers; known to be of 2026-07-28 (from the cache), it is probed and
// spoken to in that revision, and a failed call names the setting, the
// server's server/discover having listed both eras. "2025-11-25" speaks
// initialize whatever the cache says; "2026-07-28" speaks that revision
// only, and a server of 2026-07-28 only fails its start set to
// 2025-11-25, in one line.
func TestProtocolSettingStdio(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, mode, protocol string
		known                era // the era the cache gave
		startErr             string
		era                  era
		ask                  string
		hint                 bool
	}{
		{"auto, era not known", "ask", config.ProtocolAuto, eraUnknown, "", eraLegacy, answered, false},
		{"auto, known 2026-07-28", "ask", config.ProtocolAuto, eraModern, "", eraModern, refused, true},
		{"2025-11-25, known 2026-07-28", "ask", config.ProtocolLegacy, eraModern, "", eraLegacy, answered, false},
		{"2026-07-28, era not known", "ask", config.ProtocolModern, eraUnknown, "", eraModern, refused, false},
		{"2025-11-25, a server of 2026-07-28 only", "modern-only", config.ProtocolLegacy, eraUnknown,
			`MCP server ask did not start: it does not speak protocol 2025-11-25, which its "protocol" setting asks for (it supports [2026-07-28])`, eraUnknown, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testServerConfig(t, "ask", tc.mode)
			cfg.Protocol = tc.protocol
			m := NewManager([]config.MCPServer{cfg}, Options{Host: nameHost(), Logger: slog.New(slog.DiscardHandler)})
			t.Cleanup(func() { _ = m.Close() })
			m.conn("ask").setEra(tc.known)
			errs := m.Start(t.Context())
			if tc.startErr != "" {
				if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.startErr) || strings.Contains(errs[0].Error(), "\n") {
					t.Fatalf("start errors %v, want one line beginning %q", errs, tc.startErr)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("start: %v", errs)
			}
			if e := m.conn("ask").getEra(); e != tc.era {
				t.Errorf("era %v, want %v", e, tc.era)
			}
			checkAsk(t, register(t, m), tc.ask, tc.hint)
		})
	}
}

// checkAsk calls ask and ask_caught, which elicit, and fail, which fails
// for a reason of its own. Each tool asking gets its answer (want
// answered), or its call fails with mcp-go's words for the refusal, and
// the hint naming the setting when hint. fail's call fails as it would
// anywhere, and gets the hint too when hint: the agent cannot tell it
// from a refused request (protocol.go), so the hint says "if".
func checkAsk(t *testing.T, set *tools.Set, want string, hint bool) {
	t.Helper()
	for _, tool := range []string{"ask", "ask_caught"} {
		r := call(t, set, ToolName("ask", tool), `{}`)
		switch want {
		case answered:
			if r.IsError || r.Text != "hello Ada" {
				t.Errorf("%s: %+v, want the answer hello Ada", tool, r)
			}
			continue
		case refused:
			if !r.IsError || !strings.Contains(r.Text, "server-initiated requests are not supported in protocol version 2026-07-28") {
				t.Errorf("%s: %+v, want the server's refusal", tool, r)
			}
		}
		if got := strings.Contains(r.Text, hintWords); got != hint {
			t.Errorf("%s: hint shown %v, want %v: %q", tool, got, hint, r.Text)
		}
		if lines := strings.Split(r.Text, "\n"); hint && (len(lines) != 2 || !strings.Contains(lines[1], hintWords)) {
			t.Errorf("%s: %q, want the server's words, then the hint on a line of its own", tool, r.Text)
		}
	}
	r := call(t, set, ToolName("ask", "fail"), `{}`)
	if !r.IsError || !strings.Contains(r.Text, "the disk is full") || strings.Contains(r.Text, hintWords) != hint {
		t.Errorf("fail: %+v, want its error, with the hint %v", r, hint)
	}
}

// TestPinnedEraNotCached: the era a "protocol" setting chose is not kept
// with the cached catalog, so that with the setting removed "auto" finds
// the server's era again (a server of both eras set to 2025-11-25 would
// otherwise never be probed again); the era "auto" found is kept. /mcp
// and agent mcp list show the setting, and the revision spoken.
func TestPinnedEraNotCached(t *testing.T) {
	for _, tc := range []struct {
		protocol, typ string
		spoken        era
		cached        string // the cached era
		status        Status // its Protocol and Revision
	}{
		{"", config.MCPHTTP, eraModern, "2026-07-28", Status{Protocol: "auto", Revision: "2026-07-28"}},
		{"auto", config.MCPStdio, eraLegacy, "2025-11-25", Status{Protocol: "auto", Revision: "2025-11-25"}},
		{"", config.MCPHTTP, eraUnknown, "", Status{Protocol: "auto"}},
		{"2025-11-25", config.MCPHTTP, eraLegacy, "", Status{Protocol: "2025-11-25", Revision: "2025-11-25"}},
		{"2025-11-25", config.MCPHTTP, eraUnknown, "", Status{Protocol: "2025-11-25", Revision: "2025-11-25"}},
		{"2026-07-28", config.MCPStdio, eraModern, "", Status{Protocol: "2026-07-28", Revision: "2026-07-28"}},
		{"", config.MCPSSE, eraLegacy, "2025-11-25", Status{Protocol: "auto", Revision: "2025-11-25"}},
	} {
		c := &conn{cfg: config.MCPServer{Name: "s", Type: tc.typ, Protocol: tc.protocol}}
		c.setEra(tc.spoken)
		var x cachedExtras
		if b := c.extrasJSON(); b != nil {
			if err := json.Unmarshal(b, &x); err != nil {
				t.Fatal(err)
			}
		}
		if x.Era != tc.cached {
			t.Errorf("protocol %q, spoken %v: cached era %q, want %q", tc.protocol, tc.spoken, x.Era, tc.cached)
		}
		if st := c.status(); st.Protocol != tc.status.Protocol || st.Revision != tc.status.Revision {
			t.Errorf("protocol %q, spoken %v: status protocol %q revision %q, want %q %q", tc.protocol, tc.spoken, st.Protocol, st.Revision, tc.status.Protocol, tc.status.Revision)
		}
	}
}
