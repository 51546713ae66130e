package openaichat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
)

// catalog loads the 282 real MCP tools of ../shared/catalogs/ALL.json.
func catalog(tb testing.TB) []agent.ToolDef {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "catalogs", "ALL.json"))
	if err != nil {
		tb.Skipf("needs ../shared/catalogs/ALL.json (the shared data beside the repository root, as in CI): put shared/ at ../shared to run this (%v)", err)
	}
	var raw []struct {
		Server, Name, Description string
		InputSchema               json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		tb.Fatal(err)
	}
	var out []agent.ToolDef
	seen := map[string]bool{}
	for _, t := range raw {
		name := t.Name
		if seen[name] {
			name = t.Server + "__" + t.Name
		}
		seen[name] = true
		out = append(out, agent.ToolDef{Name: name, Description: t.Description, Schema: t.InputSchema, Server: t.Server})
	}
	return out
}

// The real catalog, sent eagerly (off) and behind tool_search (client):
// every name is acceptable to the strict fake, the whole of it eagerly is
// over OpenAI's 128 tools, and the client-mode tools array is a small
// fraction of the eager one.
func TestCatalogToolsSize(t *testing.T) {
	cat := catalog(t)
	p := New(Options{})
	off, err := p.render(&agent.Request{Model: "m", Tools: append([]agent.ToolDef{readFile}, cat...), Messages: []agent.Message{user("x")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := chattest.Check(off.body, false); err == nil || !strings.Contains(err.Error(), "array too long") {
		t.Fatalf("%d tools eagerly: %v, want OpenAI's array_above_max_length", len(cat)+1, err)
	}
	for i := 0; i < len(cat); i += chattest.MaxTools {
		part := cat[i:min(i+chattest.MaxTools, len(cat))]
		r, err := p.render(&agent.Request{Model: "m", Tools: part, Messages: []agent.Message{user("x")}})
		if err != nil {
			t.Fatal(err)
		}
		if err := chattest.Check(r.body, false); err != nil {
			t.Fatalf("catalog tools %d-%d rejected: %v", i, i+len(part), err)
		}
	}
	client, err := p.render(&agent.Request{Model: "m", Tools: []agent.ToolDef{readFile}, Deferred: cat, Messages: []agent.Message{user("x")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tools: eager tools array %d bytes, client-search tools array %d bytes (%.1f%%)",
		len(cat), len(off.tools), len(client.tools), 100*float64(len(client.tools))/float64(len(off.tools)))
	if len(client.tools)*10 > len(off.tools) {
		t.Errorf("client mode saves too little: %d vs %d bytes", len(client.tools), len(off.tools))
	}
}

func longHistory(turns int) []agent.Message {
	var h []agent.Message
	for i := range turns {
		id := fmt.Sprintf("call_%d", i)
		h = append(h,
			user(fmt.Sprintf("question %d", i)),
			agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{
				agent.TextPart("Let me look."),
				agent.ToolCallPart(agent.ToolCall{ID: id, Name: "read_file", Input: json.RawMessage(`{"path":"a.txt"}`)}),
				agent.RawPart(ProviderName, APIName, json.RawMessage(`{"role":"assistant","content":"Let me look.","tool_calls":[{"id":"`+id+`","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"}}]}`)),
			}},
			agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: id, Text: strings.Repeat("line of file\n", 40)})}},
		)
	}
	return h
}

func BenchmarkRenderClient(b *testing.B) {
	cat := catalog(b)
	p := New(Options{})
	req := &agent.Request{Model: "m", Tools: []agent.ToolDef{readFile}, Deferred: cat, Messages: longHistory(50)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.render(req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseStream(b *testing.B) {
	var sb strings.Builder
	for i := range 500 {
		fmt.Fprintf(&sb, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok%d \"},\"finish_reason\":null}]}\n\n", i)
	}
	sb.WriteString(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"x\"}"}}]},"finish_reason":"tool_calls"}]}` + "\n\n")
	sb.WriteString("data: [DONE]\n\n")
	body := sb.String()
	p := New(Options{})
	r := &rendered{mode: agent.SearchOff, fromWire: map[string]string{}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.parseStream(strings.NewReader(body), r, func(agent.StreamEvent) {}); err != nil {
			b.Fatal(err)
		}
	}
}
