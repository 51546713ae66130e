package openaichat

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var (
	readFile = agent.ToolDef{Name: "read_file", Description: "Read a file from disk.",
		Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}
	weather = agent.ToolDef{Name: "weather_lookup", Description: "Current weather for a city.", Server: "weather",
		Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"],"additionalProperties":false}`)}
	stocks = agent.ToolDef{Name: "stock_price", Description: "Latest price of a stock ticker.", Server: "finance",
		Schema: json.RawMessage(`{"type": "object", "properties": {"ticker": {"type": "string"}}}`)}
	dotted = agent.ToolDef{Name: "github.create_issue", Description: "Open an issue.",
		Schema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}}}`)}
)

func raw(v any) agent.Part {
	b, _ := json.Marshal(v)
	return agent.RawPart(ProviderName, APIName, b)
}

func user(text string) agent.Message {
	return agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart(text)}}
}

// clientHistory is a conversation this adapter had in client mode: a
// search, a wrapped call of the found tool, its result and an answer.
func clientHistory() []agent.Message {
	return []agent.Message{
		user("Weather in Berlin?"),
		{Role: agent.RoleAssistant, Parts: []agent.Part{
			agent.SearchCallPart(agent.SearchCall{ID: "call_s1", Where: agent.WhereClient, Query: "weather"}),
			raw(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
				map[string]any{"id": "call_s1", "type": "function", "function": map[string]any{"name": "tool_search", "arguments": `{"query":"weather"}`}}}}),
		}},
		{Role: agent.RoleUser, Parts: []agent.Part{
			agent.SearchResultPart(agent.SearchResult{CallID: "call_s1", Where: agent.WhereClient, Tools: []string{"weather_lookup"}}),
		}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{
			agent.TextPart("Looking it up."),
			agent.ToolCallPart(agent.ToolCall{ID: "call_w1", Name: "weather_lookup", Input: json.RawMessage(`{"city":"Berlin"}`)}),
			raw(map[string]any{"role": "assistant", "content": "Looking it up.", "tool_calls": []any{
				map[string]any{"id": "call_w1", "type": "function", "function": map[string]any{"name": "tool_call", "arguments": `{"name":"weather_lookup","arguments":{"city":"Berlin"}}`}}}}),
		}},
		{Role: agent.RoleUser, Parts: []agent.Part{
			agent.ToolResultPart(agent.ToolResult{CallID: "call_w1", Name: "weather_lookup", Text: "Sunny, 21°C"}),
		}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("It is sunny."), raw(map[string]any{"role": "assistant", "content": "It is sunny."})}},
		user("And tomorrow?"),
	}
}

// anthropicHistory is a conversation begun on Anthropic with native search,
// including the split case: the search result arrives at the start of the
// next assistant message, after a client tool ran in between.
func anthropicHistory() []agent.Message {
	other := agent.RawPart("anthropic", "messages", json.RawMessage(`[{"type":"server_tool_use","id":"srvtoolu_1"}]`))
	return []agent.Message{
		user("Weather in Berlin, and read notes.txt"),
		{Role: agent.RoleAssistant, Parts: []agent.Part{
			agent.SearchCallPart(agent.SearchCall{ID: "srvtoolu_1", Where: agent.WhereProvider, Query: "weather city"}),
			agent.ToolCallPart(agent.ToolCall{ID: "toolu_r1", Name: "read_file", Input: json.RawMessage(`{"path":"notes.txt"}`)}),
			other,
		}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "toolu_r1", Name: "read_file", Text: "buy milk"})}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{
			agent.SearchResultPart(agent.SearchResult{CallID: "srvtoolu_1", Where: agent.WhereProvider, Tools: []string{"weather_lookup"}}),
			agent.ServerToolPart(agent.ServerTool{ID: "srvtoolu_2", Name: "web_search", Input: json.RawMessage(`{"query":"x"}`)}),
			agent.TextPart("Checking the weather."),
			agent.ToolCallPart(agent.ToolCall{ID: "toolu_w1", Name: "weather_lookup", Input: json.RawMessage(`{"city":"Berlin"}`)}),
			other,
		}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "toolu_w1", Name: "weather_lookup", Text: "Sunny"})}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Sunny, and buy milk."), other}},
		user("Thanks"),
	}
}

func TestRenderGolden(t *testing.T) {
	yes := true
	seeing, err := (*models.Table)(nil).With(map[string]models.Override{"m": {TakesImages: &yes}})
	if err != nil {
		t.Fatal(err)
	}
	imgResult := []agent.Message{
		user("Screenshot please"),
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"a.png"}`)})}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "call_1", Name: "read_file", Text: "a.png",
			Images: []agent.Image{{MediaType: "image/png", Data: "iVBORw0KGgo="}}})}},
	}
	interrupted := []agent.Message{
		user("go"),
		{Role: agent.RoleAssistant, Parts: []agent.Part{
			agent.ToolCallPart(agent.ToolCall{ID: "call_a", Name: "read_file", Input: json.RawMessage(`{"path":"x"}`)}),
			agent.ToolCallPart(agent.ToolCall{ID: "call_b", Name: "read_file", Input: json.RawMessage(`{"path":"y"}`)}),
		}},
		{Role: agent.RoleUser, Parts: []agent.Part{
			agent.ToolResultPart(agent.ToolResult{CallID: "call_a", Text: "ok"}),
			agent.ToolResultPart(agent.ToolResult{CallID: "call_zzz", Text: "stray"}),
			agent.TextPart("never mind"),
		}},
	}
	cases := []struct {
		name string
		opts Options
		req  agent.Request
	}{
		{"plain", Options{}, agent.Request{Model: "m", System: "Be brief.", Tools: []agent.ToolDef{readFile}, Messages: []agent.Message{user("hi")}}},
		{"client", Options{}, agent.Request{Model: "m", System: "Be brief.", Tools: []agent.ToolDef{readFile},
			Deferred: []agent.ToolDef{weather, stocks}, Search: agent.SearchNative, Messages: clientHistory()}},
		// off: what BuildRequest sends then, every tool eager.
		{"off", Options{}, agent.Request{Model: "m", Tools: []agent.ToolDef{readFile, weather, stocks},
			Search: agent.SearchOff, Messages: clientHistory()}},
		{"from_anthropic_client", Options{}, agent.Request{Model: "m", Tools: []agent.ToolDef{readFile},
			Deferred: []agent.ToolDef{weather, stocks}, Search: agent.SearchNative, Messages: anthropicHistory()}},
		{"from_anthropic_off", Options{}, agent.Request{Model: "m", Tools: []agent.ToolDef{readFile, weather, stocks},
			Search: agent.SearchOff, Messages: anthropicHistory()}},
		{"mistral_ids", Options{ShortCallIDs: true}, agent.Request{Model: "m", Tools: []agent.ToolDef{readFile},
			Deferred: []agent.ToolDef{weather}, Messages: anthropicHistory()}},
		{"image_result", Options{Models: seeing}, agent.Request{Model: "m", Tools: []agent.ToolDef{readFile}, Messages: imgResult}},
		// A model that reads no images gets the note instead (DeepSeek
		// answers an image_url part with "Model do not support image input").
		{"image_result_text_only", Options{}, agent.Request{Model: "deepseek-flash", Tools: []agent.ToolDef{readFile}, Messages: imgResult}},
		{"interrupted", Options{}, agent.Request{Model: "m", Tools: []agent.ToolDef{readFile}, Messages: interrupted}},
		{"nostream_maxtokens_badname", Options{MaxTokensField: "max_completion_tokens"}, agent.Request{Model: "m", MaxTokens: 1024, NoStream: true,
			Tools: []agent.ToolDef{dotted}, Messages: []agent.Message{user("hi")}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(tc.opts)
			r, err := p.render(&tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if err := chattest.Check(r.body, false); err != nil {
				t.Errorf("the real API would reject this body: %v\n%s", err, r.body)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, r.body, "", "  "); err != nil {
				t.Fatalf("body is not JSON: %v\n%s", err, r.body)
			}
			pretty.WriteByte('\n')
			golden(t, filepath.Join("testdata", tc.name+".json"), pretty.Bytes())
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update if intended)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// With nothing deferred, asking for search must not change a byte.
func TestNothingDeferredIsPlain(t *testing.T) {
	p := New(Options{})
	base := agent.Request{Model: "m", Tools: []agent.ToolDef{readFile}, Messages: []agent.Message{user("hi")}}
	plain, err := p.render(&base)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []agent.SearchMode{agent.SearchNative, agent.SearchClient, agent.SearchOff} {
		req := base
		req.Search = mode
		r, err := p.render(&req)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r.body, plain.body) {
			t.Errorf("search %s with nothing deferred changed the body:\n%s\nvs\n%s", mode, r.body, plain.body)
		}
		if r.mode != agent.SearchOff {
			t.Errorf("resolved %s, want off", r.mode)
		}
	}
}

// The tools array depends on settings alone: not on history, not on what
// searches found.
func TestToolsStableAcrossHistory(t *testing.T) {
	p := New(Options{})
	hist := clientHistory()
	var first []byte
	for n := 1; n <= len(hist); n++ {
		req := agent.Request{Model: "m", Tools: []agent.ToolDef{readFile}, Deferred: []agent.ToolDef{weather, stocks}, Messages: hist[:n]}
		r, err := p.render(&req)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = r.tools
		}
		if !bytes.Equal(r.tools, first) {
			t.Fatalf("tools array changed after %d messages", n)
		}
		if strings.Contains(string(r.tools), "weather_lookup") {
			t.Fatalf("a deferred tool leaked into the tools array")
		}
	}
}

func TestWireName(t *testing.T) {
	long := strings.Repeat("x", 80)
	for _, n := range []string{"read_file", "github.create_issue", "a b/c", long, "ünïcode", ""} {
		w := wireName(n)
		if !validName().MatchString(w) {
			t.Errorf("wireName(%q) = %q, not a valid function name", n, w)
		}
		if wireName(n) != w {
			t.Errorf("wireName(%q) not deterministic", n)
		}
	}
	if wireName("a.b") == wireName("a_b") {
		t.Error("a.b and a_b collide")
	}
}

func TestProviderToolsPassThrough(t *testing.T) {
	req := &agent.Request{Model: "m", Messages: []agent.Message{user("x")}, ProviderTools: []agent.ProviderTool{
		{Alias: "web_search"},
		{Raw: json.RawMessage(`{ "type": "function", "function": {"name": "custom", "parameters": {"type": "object"}} }`)},
	}}
	r, err := New(Options{}).render(req)
	if err != nil {
		t.Fatal(err)
	}
	if string(r.tools) != `[{"type":"function","function":{"name":"custom","parameters":{"type":"object"}}}]` {
		t.Errorf("tools %s", r.tools)
	}
}
