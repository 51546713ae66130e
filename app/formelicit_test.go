package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// newFormServer's tool book asks for a form (elicitation/create with a
// requestedSchema) and says what it got; name has the default nameDefault
// unless that is nil.
func newFormServer(nameDefault any) *server.MCPServer {
	s := server.NewMCPServer("shop", "1.0.0", server.WithToolCapabilities(true), server.WithElicitation())
	name := map[string]any{"type": "string", "title": "Name"}
	if nameDefault != nil {
		name["default"] = nameDefault
	}
	s.AddTool(mcpgo.NewTool("book", mcpgo.WithDescription("Books a table")),
		func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var req mcpgo.ElicitationRequest
			req.Params.Message = "Who is the booking for?"
			req.Params.RequestedSchema = map[string]any{"type": "object", "required": []string{"name"}, "properties": map[string]any{
				"name":   name,
				"guests": map[string]any{"type": "integer", "title": "Guests", "default": 2},
			}}
			res, err := s.RequestElicitation(ctx, req)
			if err != nil {
				return nil, err
			}
			b, _ := json.Marshal(res.Content)
			return mcpgo.NewToolResultText("booking " + string(res.Action) + " " + string(b)), nil
		})
	return s
}

// TestPrintFormElicitation: in -p a server's form (elicitation/create
// with a requestedSchema) is said on stderr and, in stream-json, as an
// elicitation event with the server, the message, the fields and what
// the run answered: declined, as no one is there to fill it in, or with
// --yes accepted with the defaults when every required field has one.
func TestPrintFormElicitation(t *testing.T) {
	fields := func(nameDefault any) []agent.ElicitationField {
		// In the order of the schema's properties (a Go map's: sorted).
		return []agent.ElicitationField{
			{Name: "guests", Title: "Guests", Type: "integer", Default: float64(2)},
			{Name: "name", Title: "Name", Type: "string", Required: true, Default: nameDefault},
		}
	}
	for _, tt := range []struct {
		name        string
		yes         bool
		nameDefault any
		action      string
		content     map[string]any
		stderr      string
		result      string
	}{
		{"default", false, "Ann", "decline", nil,
			`MCP server shop asked for a form (guests, name): declined (set "elicitation": "accept-defaults" or pass --yes`, "booking decline"},
		{"yes", true, "Ann", "accept", map[string]any{"name": "Ann", "guests": float64(2)},
			"MCP server shop asked for a form (guests, name): accepted with the defaults", `booking accept {"guests":2,"name":"Ann"}`},
		{"yes, a required field without a default", true, nil, "decline", nil,
			"MCP server shop asked for a form (guests, name): declined (a required field has no default", "booking decline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, false)
			srv := httptest.NewServer(legacyHTTP(newFormServer(tt.nameDefault)))
			t.Cleanup(srv.Close)
			cfg := filepath.Join(t.TempDir(), "mcp.json")
			writeFile(t, cfg, `{"mcpServers": {"shop": {"type": "http", "url": "`+srv.URL+`/mcp"}}}`)
			f.flags.MCPConfig = cfg
			f.fake.Script = anthropictest.NewScript(anthropictest.Turn{Call: "shop__book", Input: map[string]any{}}, anthropictest.Turn{Text: "Done."})
			a := f.open(t, nil)
			a.opts.Yes = tt.yes
			var out, stderr bytes.Buffer
			if err := a.Print(t.Context(), "book", PrintOptions{Format: "stream-json", Yes: tt.yes, Stdout: &out, Stderr: &stderr}); err != nil {
				t.Fatalf("print: %v (%s)", err, stderr.String())
			}
			var elicits []agent.ElicitationEvent
			var results []string
			sc := bufio.NewScanner(&out)
			for sc.Scan() {
				var ev agent.Event
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
					continue // the init and result lines
				}
				switch {
				case ev.Type == agent.EventElicitation && ev.Elicitation != nil:
					elicits = append(elicits, *ev.Elicitation)
				case ev.Type == agent.EventWarning && strings.Contains(ev.Text, "asked for a form"):
					t.Errorf("the form is said as a warning: %s", sc.Bytes())
				case ev.Type == agent.EventToolFinished:
					results = append(results, ev.Tool.Result)
				}
			}
			want := agent.ElicitationEvent{Server: "shop", Mode: "form", Message: "Who is the booking for?",
				Fields: fields(tt.nameDefault), Action: tt.action, Content: tt.content}
			if len(elicits) != 1 || !reflect.DeepEqual(elicits[0], want) {
				t.Errorf("elicitation events %+v, want %+v", elicits, want)
			}
			if !strings.Contains(stderr.String(), "agent: "+tt.stderr) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.stderr)
			}
			if len(results) != 1 || !strings.HasPrefix(results[0], tt.result) {
				t.Errorf("tool results %q, want %q", results, tt.result)
			}
		})
	}
}

// TestPrintFormOfBothErasServer: an mcp-go server of both eras with its
// default settings, whose tool asks for a form with a request of its own.
// Unset, "protocol" is "auto": the agent speaks 2026-07-28 to it, mcp-go
// refuses the tool's request there, and the call's result, which -p shows,
// has the server's words and the line naming the setting. Set to
// "2025-11-25", the server is spoken to in that revision and the form is
// answered as a 2025-11-25 server's is (TestPrintFormElicitation). The
// agent does not fall back by itself: the refusal carries no code of its
// own, and the tool ran up to it (tools/mcp/protocol.go).
func TestPrintFormOfBothErasServer(t *testing.T) {
	for _, tt := range []struct {
		name, protocol string
		elicits        int
		result         []string // in the tool's result
	}{
		{"unset", "", 0, []string{"server-initiated requests are not supported in protocol version 2026-07-28",
			`"protocol": "2025-11-25" in the server's config may let it run`}},
		{"2025-11-25", `, "protocol": "2025-11-25"`, 1, []string{`booking accept {"guests":2,"name":"Ann"}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, false)
			srv := httptest.NewServer(server.NewStreamableHTTPServer(newFormServer("Ann")))
			t.Cleanup(srv.Close)
			cfg := filepath.Join(t.TempDir(), "mcp.json")
			writeFile(t, cfg, `{"mcpServers": {"shop": {"type": "http", "url": "`+srv.URL+`/mcp"`+tt.protocol+`}}}`)
			f.flags.MCPConfig = cfg
			f.fake.Script = anthropictest.NewScript(anthropictest.Turn{Call: "shop__book", Input: map[string]any{}}, anthropictest.Turn{Text: "Done."})
			a := f.open(t, nil)
			a.opts.Yes = true
			var out, stderr bytes.Buffer
			if err := a.Print(t.Context(), "book", PrintOptions{Format: "stream-json", Yes: true, Stdout: &out, Stderr: &stderr}); err != nil {
				t.Fatalf("print: %v (%s)", err, stderr.String())
			}
			elicits, result := 0, ""
			sc := bufio.NewScanner(&out)
			for sc.Scan() {
				var ev agent.Event
				if json.Unmarshal(sc.Bytes(), &ev) != nil {
					continue
				}
				switch ev.Type {
				case agent.EventElicitation:
					elicits++
				case agent.EventToolFinished:
					result = ev.Tool.Result
				}
			}
			if elicits != tt.elicits {
				t.Errorf("%d elicitation events, want %d", elicits, tt.elicits)
			}
			for _, w := range tt.result {
				if !strings.Contains(result, w) {
					t.Errorf("tool result %q, want %q in it", result, w)
				}
			}
		})
	}
}

// A form whose fields have no defaults, none of them required, accepted
// with --yes: the stream-json event carries "content": {} (what the server
// got), not no content at all, which reads like a decline.
func TestPrintFormAcceptedWithoutDefaultsSaysContent(t *testing.T) {
	s := server.NewMCPServer("shop", "1.0.0", server.WithToolCapabilities(true), server.WithElicitation())
	s.AddTool(mcpgo.NewTool("note", mcpgo.WithDescription("Takes a note")),
		func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var req mcpgo.ElicitationRequest
			req.Params.Message = "Anything to add?"
			req.Params.RequestedSchema = map[string]any{"type": "object", "properties": map[string]any{
				"text": map[string]any{"type": "string", "title": "Text"},
			}}
			res, err := s.RequestElicitation(ctx, req)
			if err != nil {
				return nil, err
			}
			return mcpgo.NewToolResultText("note " + string(res.Action)), nil
		})
	f := newFixture(t, false)
	srv := httptest.NewServer(legacyHTTP(s))
	t.Cleanup(srv.Close)
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	writeFile(t, cfg, `{"mcpServers": {"shop": {"type": "http", "url": "`+srv.URL+`/mcp"}}}`)
	f.flags.MCPConfig = cfg
	f.fake.Script = anthropictest.NewScript(anthropictest.Turn{Call: "shop__note", Input: map[string]any{}}, anthropictest.Turn{Text: "Done."})
	a := f.open(t, nil)
	a.opts.Yes = true
	var out, stderr bytes.Buffer
	if err := a.Print(t.Context(), "note", PrintOptions{Format: "stream-json", Yes: true, Stdout: &out, Stderr: &stderr}); err != nil {
		t.Fatalf("print: %v (%s)", err, stderr.String())
	}
	var lines []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, `"type":"elicitation"`) {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("elicitation events %q, want one\n%s", lines, out.String())
	}
	var ev struct {
		Elicitation map[string]json.RawMessage `json:"elicitation"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &ev); err != nil {
		t.Fatal(err)
	}
	if got := string(ev.Elicitation["action"]); got != `"accept"` {
		t.Errorf("action %s, want \"accept\": %s", got, lines[0])
	}
	if got, ok := ev.Elicitation["content"]; !ok || string(got) != "{}" {
		t.Errorf("content %s (present %v), want {}: %s", got, ok, lines[0])
	}
	if want := "agent: MCP server shop asked for a form (text): accepted empty (no field has a default)"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if !strings.Contains(out.String(), "note accept") {
		t.Errorf("the server did not get an accept: %s", out.String())
	}
}

// legacyHTTP serves s over streamable HTTP in the protocol revisions
// before 2026-07-28 only. These tests are of a 2025-11-25 server's
// server-initiated requests (elicitation/create); mcp-go refuses those in a
// 2026-07-28 exchange, which the agent opens with a server of both eras
// (its server/discover probe), and asks the handler for input requests
// instead (multi round-trip requests, tested in tools/mcp). A server of
// both eras is TestPrintFormOfBothErasServer's.
func legacyHTTP(s *server.MCPServer) *server.StreamableHTTPServer {
	var legacy []string
	for _, v := range mcpgo.ValidProtocolVersions {
		if !mcpgo.IsModernProtocol(v) {
			legacy = append(legacy, v)
		}
	}
	return server.NewStreamableHTTPServer(s, server.WithStreamableHTTPProtocolVersions(legacy...))
}
