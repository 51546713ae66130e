package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
)

// headerTool annotates parameters of every kind the encoding treats
// apart, one nested, and leaves one (query) unannotated.
var headerTool = map[string]any{"name": "q", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{
	"region":   map[string]any{"type": "string", "x-mcp-header": "Region"},
	"priority": map[string]any{"type": "integer", "x-mcp-header": "Priority"},
	"verbose":  map[string]any{"type": "boolean", "x-mcp-header": "Verbose"},
	"method":   map[string]any{"type": "string", "x-mcp-header": "Method"},
	"query":    map[string]any{"type": "string"},
	"opts": map[string]any{"type": "object", "properties": map[string]any{
		"zone": map[string]any{"type": "string", "x-mcp-header": "Zone"}}},
}}}

func b64(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }

// TestParamHeaders: a tools/call to a 2026-07-28 server over streamable
// HTTP carries each x-mcp-header argument as Mcp-Param-NAME, encoded as
// the specification says; before, none was sent.
func TestParamHeaders(t *testing.T) {
	t.Parallel()
	s := &statelessServer{tools: []map[string]any{headerTool}, answer: func(served, int) any { return textResult("ok") }}
	_, set := startRegistered(t, Options{}, s.start(t))
	for i, tc := range []struct {
		name string
		args string
		want map[string]string // header -> value; "-" must be absent
	}{
		{"plain ascii", `{"region":"us-west1"}`, map[string]string{"Mcp-Param-Region": "us-west1"}},
		{"inner spaces stay plain", `{"region":"us west 1"}`, map[string]string{"Mcp-Param-Region": "us west 1"}},
		{"integer", `{"priority":42}`, map[string]string{"Mcp-Param-Priority": "42"}},
		{"booleans", `{"verbose":false}`, map[string]string{"Mcp-Param-Verbose": "false"}},
		{"true", `{"verbose":true}`, map[string]string{"Mcp-Param-Verbose": "true"}},
		{"empty string is sent empty", `{"region":""}`, map[string]string{"Mcp-Param-Region": ""}},
		{"non-ascii", `{"region":"Hello, 世界"}`, map[string]string{"Mcp-Param-Region": b64("Hello, 世界")}},
		{"leading and trailing space", `{"region":" padded "}`, map[string]string{"Mcp-Param-Region": b64(" padded ")}},
		{"trailing space", `{"region":"us-west1 "}`, map[string]string{"Mcp-Param-Region": b64("us-west1 ")}},
		{"control characters", `{"region":"line1\r\nline2"}`, map[string]string{"Mcp-Param-Region": b64("line1\r\nline2")}},
		{"leading tab", `{"region":"\tindented"}`, map[string]string{"Mcp-Param-Region": b64("\tindented")}},
		{"a value that looks encoded", `{"region":"=?base64?eA==?="}`, map[string]string{"Mcp-Param-Region": b64("=?base64?eA==?=")}},
		{"null omitted", `{"region":null,"priority":1}`, map[string]string{"Mcp-Param-Region": "-", "Mcp-Param-Priority": "1"}},
		{"absent omitted", `{"priority":1}`, map[string]string{"Mcp-Param-Region": "-", "Mcp-Param-Verbose": "-"}},
		{"unannotated not mirrored", `{"query":"SELECT 1"}`, map[string]string{"Mcp-Param-Query": "-"}},
		{"Method is a parameter's, not Mcp-Method", `{"method":"m"}`, map[string]string{"Mcp-Param-Method": "m", "Mcp-Method": "tools/call"}},
		{"nested", `{"opts":{"zone":"z1"}}`, map[string]string{"Mcp-Param-Zone": "z1"}},
	} {
		if r := call(t, set, ToolName("st", "q"), tc.args); r.IsError {
			t.Fatalf("%s: %+v", tc.name, r)
		}
		got := s.served("q")[i].Header
		for h, v := range tc.want {
			vals, present := got[h]
			switch {
			case v == "-" && present:
				t.Errorf("%s: %s = %q, want none", tc.name, h, vals)
			case v != "-" && (!present || len(vals) != 1 || vals[0] != v):
				t.Errorf("%s: %s = %q (present %v), want %q", tc.name, h, vals, present, v)
			}
		}
	}
}

// TestInvalidHeaderToolsHidden: over streamable HTTP a tool whose
// x-mcp-header annotations break the specification's rules is not offered
// to the model, and its reason is listed; the server's other tools are.
// Before, all were offered.
func TestInvalidHeaderToolsHidden(t *testing.T) {
	t.Parallel()
	prop := func(typ any, header string) map[string]any {
		return map[string]any{"type": typ, "x-mcp-header": header}
	}
	tool := func(name string, props map[string]any) map[string]any {
		return map[string]any{"name": name, "inputSchema": map[string]any{"type": "object", "properties": props}}
	}
	cases := []struct {
		tool map[string]any
		why  string
	}{
		{tool("empty", map[string]any{"v": prop("string", "")}), "non-empty"},
		{tool("object", map[string]any{"v": prop("object", "Data")}), "primitive"},
		{tool("array", map[string]any{"v": prop("array", "Items")}), "primitive"},
		{tool("null", map[string]any{"v": prop("null", "Nil")}), "primitive"},
		{tool("number", map[string]any{"v": prop("number", "Score")}), "primitive"},
		{tool("untyped", map[string]any{"v": map[string]any{"x-mcp-header": "Any"}}), "primitive"},
		{tool("dup_same_case", map[string]any{"a": prop("string", "Region"), "b": prop("string", "Region")}), "duplicate"},
		{tool("dup_other_case", map[string]any{"a": prop("string", "MyField"), "b": prop("string", "myfield")}), "duplicate"},
		{tool("dup_nested", map[string]any{"a": prop("string", "Zone"), "o": map[string]any{"type": "object",
			"properties": map[string]any{"z": prop("string", "zone")}}}), "duplicate"},
		{tool("space", map[string]any{"v": prop("string", "My Region")}), "invalid character"},
		{tool("colon", map[string]any{"v": prop("string", "Region:Primary")}), "invalid character"},
		{tool("non_ascii", map[string]any{"v": prop("string", "Région")}), "invalid character"},
		{tool("control", map[string]any{"v": prop("string", "Region\t1")}), "invalid character"},
		{tool("escape", map[string]any{"v": prop("string", "R\x1b[31m")}), "invalid character"},
	}
	list := []map[string]any{tool("valid", map[string]any{"region": prop("string", "Region"), "n": prop("integer", "N")})}
	for _, c := range cases {
		list = append(list, c.tool)
	}
	s := &statelessServer{tools: list, answer: func(served, int) any { return textResult("ok") }}
	m, set := startRegistered(t, Options{}, s.start(t))
	if _, ok := set.Lookup(ToolName("st", "valid")); !ok {
		t.Fatalf("the valid tool is not offered: %v", names(set.All()))
	}
	st := m.Status()[0]
	if st.Tools != 1 {
		t.Errorf("status counts %d tools offered, want 1", st.Tools)
	}
	hidden := map[string]string{}
	for _, h := range st.Hidden {
		hidden[h.Name] = h.Reason
	}
	for _, c := range cases {
		name := c.tool["name"].(string)
		if _, ok := set.Lookup(ToolName("st", name)); ok {
			t.Errorf("%s is offered to the model", name)
		}
		why, ok := hidden[name]
		if !ok || !strings.Contains(why, c.why) || !strings.Contains(why, "x-mcp-header") {
			t.Errorf("%s: hidden reason %q (listed %v), want one naming x-mcp-header and %q", name, why, ok, c.why)
		}
		if strings.ContainsAny(why, "\t\x1b\n") {
			t.Errorf("%s: the reason %q carries the server's control characters", name, why)
		}
	}
}

// TestHeaderProblemOnlyOverHTTP: the annotations are about HTTP headers;
// over another transport a tool with invalid ones is used as before.
func TestHeaderProblemOnlyOverHTTP(t *testing.T) {
	t.Parallel()
	bad := rawTool{Name: "t", Schema: []byte(`{"type":"object","properties":{"v":{"type":"object","x-mcp-header":"V"}}}`)}
	for _, typ := range []string{config.MCPStdio, config.MCPSSE} {
		c := &conn{cfg: config.MCPServer{Name: "s", Type: typ}}
		if why := c.headerProblem(bad); why != "" {
			t.Errorf("%s: %q, want the tool used", typ, why)
		}
	}
}

// TestHeaderProblemFollowsTheSchema: the verdict kept for a tool is its
// schema's; a new list's schema of the same tool is checked again.
func TestHeaderProblemFollowsTheSchema(t *testing.T) {
	t.Parallel()
	bad := []byte(`{"type":"object","properties":{"v":{"type":"object","x-mcp-header":"V"}}}`)
	good := []byte(`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"V"}}}`)
	c := &conn{m: &Manager{log: slog.New(slog.DiscardHandler)}, cfg: config.MCPServer{Name: "s", Type: config.MCPHTTP}}
	for i, step := range []struct {
		schema  []byte
		invalid bool
	}{{bad, true}, {bad, true}, {slices.Clone(bad), true}, {good, false}, {good, false}, {bad, true}} {
		if why := c.headerProblem(rawTool{Name: "t", Schema: step.schema}); (why != "") != step.invalid {
			t.Errorf("step %d: reason %q, want invalid=%v", i, why, step.invalid)
		}
	}
}

// TestHeaderProblemOnlyInTheRevisionOfHeaders: a server known to speak
// 2025-11-25 is sent no Mcp-Param headers, so a tool whose annotation is
// invalid is used there; one of 2026-07-28, or not yet known, has it
// hidden.
func TestHeaderProblemOnlyInTheRevisionOfHeaders(t *testing.T) {
	t.Parallel()
	bad := rawTool{Name: "t", Schema: []byte(`{"type":"object","properties":{"v":{"type":"object","x-mcp-header":"V"}}}`)}
	for _, tt := range []struct {
		era    era
		hidden bool
	}{{eraUnknown, true}, {eraModern, true}, {eraLegacy, false}} {
		c := &conn{m: &Manager{log: slog.New(slog.DiscardHandler)}, cfg: config.MCPServer{Name: "s", Type: config.MCPHTTP}}
		c.setEra(tt.era)
		if why := c.headerProblem(bad); (why != "") != tt.hidden {
			t.Errorf("era %q: reason %q, want hidden=%v", tt.era, why, tt.hidden)
		}
	}
}

// TestInvalidHeaderToolOfLegacyServerOffered: over streamable HTTP, a
// server of 2025-11-25 only has its tool with an invalid x-mcp-header
// offered (it is sent no headers); the same server of both eras, spoken
// 2026-07-28, has it hidden.
func TestInvalidHeaderToolOfLegacyServerOffered(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		handler func(*server.MCPServer) http.Handler
		offered bool
	}{
		{"2025-11-25 only", func(s *server.MCPServer) http.Handler { return legacyHTTP(s) }, true},
		{"both eras", func(s *server.MCPServer) http.Handler { return server.NewStreamableHTTPServer(s) }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// mcp-go refuses to register the invalid annotation: the tool
			// is registered valid and listed invalid, through its filter.
			s := server.NewMCPServer("hdr", "1.0.0", server.WithToolCapabilities(false),
				server.WithToolFilter(func(_ context.Context, ts []mcpgo.Tool) []mcpgo.Tool {
					for i := range ts {
						ts[i].RawInputSchema = json.RawMessage(`{"type":"object","properties":{"v":{"type":"object","x-mcp-header":"V"}}}`)
					}
					return ts
				}))
			s.AddTool(mcpgo.NewToolWithRawSchema("bad", "An object in a header", json.RawMessage(`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"V"}}}`)),
				func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
					return mcpgo.NewToolResultText("ok"), nil
				})
			srv := httptest.NewServer(tt.handler(s))
			t.Cleanup(srv.Close)
			_, set := startRegistered(t, Options{}, config.MCPServer{Name: "hdr", Type: config.MCPHTTP, URL: srv.URL})
			if _, ok := set.Lookup(ToolName("hdr", "bad")); ok != tt.offered {
				t.Errorf("tool offered %v, want %v", ok, tt.offered)
			}
		})
	}
}
