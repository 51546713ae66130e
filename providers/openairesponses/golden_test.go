package openairesponses

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

var update = flag.Bool("update", false, "rewrite testdata/golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	buf.WriteByte('\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Errorf("%s differs from golden:\n%s", name, buf.String())
	}
}

var (
	readFile = agent.ToolDef{Name: "read_file", Description: "Read a file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}
	weather  = agent.ToolDef{Name: "get_weather", Description: "Get the weather", Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`), Server: "weather"}
	stock    = agent.ToolDef{Name: "stock_price", Description: "Stock price", Schema: json.RawMessage(`{"type":"object","properties":{"symbol":{"type":"string"}}}`), Server: "finance"}
)

func user(parts ...agent.Part) agent.Message {
	return agent.Message{Role: agent.RoleUser, Parts: parts}
}
func asst(parts ...agent.Part) agent.Message {
	return agent.Message{Role: agent.RoleAssistant, Parts: parts}
}

// anthropicHistory is a conversation begun on Anthropic with native search:
// neutral parts plus an Anthropic raw part that must never be sent here.
func anthropicHistory() []agent.Message {
	return []agent.Message{
		user(agent.TextPart("weather in Paris?")),
		asst(agent.TextPart("Let me look."),
			agent.SearchCallPart(agent.SearchCall{ID: "srvtoolu_01", Where: agent.WhereProvider, Query: "weather"}),
			agent.SearchResultPart(agent.SearchResult{CallID: "srvtoolu_01", Where: agent.WhereProvider, Tools: []string{"get_weather"}}),
			agent.ToolCallPart(agent.ToolCall{ID: "toolu_01", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}),
			agent.RawPart("anthropic", "messages", json.RawMessage(`[{"type":"text","text":"Let me look."}]`))),
		user(agent.ToolResultPart(agent.ToolResult{CallID: "toolu_01", Name: "get_weather", Text: "sunny"})),
		asst(agent.TextPart("Sunny."), agent.RawPart("anthropic", "messages", json.RawMessage(`[]`))),
		user(agent.TextPart("and Rome?")),
	}
}

// openaiHistory is our own hosted-search turn, replayed from raw items: the
// search loaded the weather namespace and the call came back in it.
func openaiHistory() []agent.Message {
	return openaiHistoryRaw(`[{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"enc"},` +
		`{"id":"tsc_1","type":"tool_search_call","status":"completed","arguments":{"paths":["weather"]},"call_id":null,"execution":"server"},` +
		`{"id":"tso_1","type":"tool_search_output","status":"completed","call_id":null,"execution":"server","tools":[{"type":"namespace","name":"weather","description":"Tools of the weather MCP server: get_weather","tools":[{"type":"function","name":"get_weather","defer_loading":true,"parameters":{"type":"object"},"strict":true}]}]},` +
		`{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"city\":\"Paris\"}","call_id":"call_1","name":"get_weather","namespace":"weather"}]`)
}

// legacyHistory is a hosted-search turn from before deferred tools were
// grouped: get_weather was a top-level deferred function, its own namespace.
func legacyHistory() []agent.Message {
	return openaiHistoryRaw(`[{"id":"tsc_1","type":"tool_search_call","status":"completed","arguments":{"paths":["get_weather"]},"call_id":null,"execution":"server"},` +
		`{"id":"tso_1","type":"tool_search_output","status":"completed","call_id":null,"execution":"server","tools":[{"type":"function","name":"get_weather","defer_loading":true,"parameters":{"type":"object"}}]},` +
		`{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"city\":\"Paris\"}","call_id":"call_1","name":"get_weather","namespace":"get_weather"}]`)
}

func openaiHistoryRaw(raw string) []agent.Message {
	pc := parseContext{}
	a := newAssembler(pc, func(agent.StreamEvent) {}, false)
	var items []json.RawMessage
	_ = json.Unmarshal([]byte(raw), &items)
	for i, it := range items {
		a.add(i, it)
	}
	m := a.finish().Message
	return []agent.Message{
		user(agent.TextPart("weather in Paris?")), m,
		user(agent.ToolResultPart(agent.ToolResult{CallID: "call_1", Text: "sunny"})),
		user(agent.TextPart("and Rome?")),
	}
}

func TestGoldenRequests(t *testing.T) {
	cases := []struct {
		name  string
		model string
		mode  agent.SearchMode
		hist  []agent.Message
		pts   []agent.ProviderTool
		plain bool
	}{
		{name: "plain", model: "gpt-5.4", mode: agent.SearchNative, plain: true},
		{name: "native", model: "gpt-5.4", mode: agent.SearchNative},
		{name: "client_tool_search", model: "gpt-5.4", mode: agent.SearchClient},
		{name: "client_functions", model: "gpt-4.1", mode: agent.SearchNative},
		{name: "off", model: "gpt-5.4", mode: agent.SearchOff},
		{name: "from_anthropic_native", model: "gpt-5.4", mode: agent.SearchNative, hist: anthropicHistory()},
		{name: "from_anthropic_functions", model: "gpt-4.1", mode: agent.SearchNative, hist: anthropicHistory()},
		{name: "replay_native", model: "gpt-5.4", mode: agent.SearchNative, hist: openaiHistory()},
		{name: "replay_client", model: "gpt-5.4", mode: agent.SearchClient, hist: openaiHistory()},
		{name: "replay_functions", model: "gpt-4.1", mode: agent.SearchNative, hist: openaiHistory()},
		{name: "replay_off", model: "gpt-5.4", mode: agent.SearchOff, hist: openaiHistory()},
		{name: "replay_legacy_native", model: "gpt-5.4", mode: agent.SearchNative, hist: legacyHistory()},
		{name: "provider_tools", model: "gpt-5.4", mode: agent.SearchNative, plain: true, pts: []agent.ProviderTool{
			{Alias: "web_search", Options: json.RawMessage(`{"allowed_domains":["go.dev"],"search_context_size":"low"}`)},
			{Alias: "code_execution"},
			{Alias: "mcp", Options: json.RawMessage(`{"name":"deepwiki","url":"https://mcp.deepwiki.com/mcp","require_approval":"always","allowed_tools":["ask_question"]}`)},
			{Alias: "web_search", Options: json.RawMessage(`{"search_context_size":"high"}`)},
			{Raw: json.RawMessage(`{ "type": "image_generation", "quality": "low" }`)},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := &agent.Request{Model: c.model, Search: c.mode, Tools: []agent.ToolDef{readFile}, System: "Be brief.", ProviderTools: c.pts,
				Messages: c.hist}
			if !c.plain {
				req.Deferred = []agent.ToolDef{weather, stock}
			}
			if req.Messages == nil {
				req.Messages = []agent.Message{user(agent.TextPart("hi"))}
			}
			body, tools, _, err := New(Options{}).build(req)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(body, []byte("anthropic")) || bytes.Contains(body, []byte("previous_response_id")) {
				t.Errorf("foreign raw or previous_response_id sent")
			}
			golden(t, c.name, body)
			// The tools array does not depend on the history.
			req.Messages = nil
			_, tools2, _, _ := New(Options{}).build(req)
			if !bytes.Equal(tools, tools2) {
				t.Errorf("tools depend on history")
			}
		})
	}
}

func TestPlainRequestHasNoSearch(t *testing.T) {
	req := &agent.Request{Model: "gpt-5.4", Search: agent.SearchNative, Tools: []agent.ToolDef{readFile}, Messages: []agent.Message{user(agent.TextPart("hi"))}}
	body, _, mode, _ := New(Options{}).build(req)
	if mode != agent.SearchOff || bytes.Contains(body, []byte("tool_search")) || bytes.Contains(body, []byte("defer_loading")) {
		t.Errorf("plain request mentions search: %s", body)
	}
}

func TestProviderToolErrors(t *testing.T) {
	err := ValidateProviderTools([]agent.ProviderTool{{Alias: "web_fetch"}})
	if err == nil || !strings.Contains(err.Error(), "code_execution, mcp, web_search") {
		t.Errorf("web_fetch: %v", err)
	}
	if err := ValidateProviderTools([]agent.ProviderTool{{Alias: "mcp", Options: json.RawMessage(`{"url":"x"}`)}}); err == nil {
		t.Errorf("mcp without name accepted")
	}
	t.Setenv("MCP_TOKEN_TEST", "sekret")
	defs, err := renderProviderTools([]agent.ProviderTool{{Alias: "mcp", Options: json.RawMessage(`{"name":"x","url":"https://x","token_env":"MCP_TOKEN_TEST"}`)}})
	if err != nil || !strings.Contains(string(defs[0]), `"authorization":"sekret"`) {
		t.Errorf("token_env: %s %v", defs, err)
	}
}

func TestCapabilityTable(t *testing.T) {
	for model, want := range map[string]bool{
		"gpt-5.4": true, "gpt-5.4-2026-03-05": true, "gpt-5.4-mini": true, "gpt-5.5": true, "gpt-5.6-sol": true, "gpt-6": true,
		"openai/gpt-5.4": true, "gpt-5.2": false, "gpt-5": false, "gpt-4.1": false, "o3": false, "my-azure-deployment": false,
	} {
		if got := SupportsToolSearch(model, nil); got != want {
			t.Errorf("%s: %v, want %v", model, got, want)
		}
	}
	ov := map[string]bool{"my-azure-*": true, "gpt-5.4-nano": false}
	if !SupportsToolSearch("my-azure-deployment", ov) || SupportsToolSearch("gpt-5.4-nano", ov) {
		t.Errorf("override ignored")
	}
}
