package anthropic

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var (
	readFile = agent.ToolDef{Name: "read_file", Description: "Read a file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}
	weather  = agent.ToolDef{Name: "weather_lookup", Description: "Looks up the current weather for a city", Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	stock    = agent.ToolDef{Name: "stock_price", Description: "Looks up a stock price", Schema: json.RawMessage(`{"type":"object","properties":{"ticker":{"type":"string"}}}`)}
)

const nativeModel = "claude-sonnet-4-5-20250929"

func user(text string) agent.Message {
	return agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart(text)}}
}

// searchTurn is an answer with a native search pair and a call of the
// found tool, as parsed from the API.
func searchTurn() agent.Message {
	raw := `[{"type":"text","text":"Searching."},{"type":"server_tool_use","id":"srvtoolu_01A","name":"tool_search_tool_bm25","input":{"query":"weather"},"caller":{"type":"direct"}},{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_01A","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"weather_lookup"}]}},{"type":"tool_use","id":"toolu_01B","name":"weather_lookup","input":{"city":"Berlin"}}]`
	return parsedMessage(raw)
}

func parsedMessage(raw string) agent.Message {
	p := &contentParser{req: &agent.Request{}, emit: func(agent.StreamEvent) {}}
	var blocks []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &blocks); err != nil {
		panic(err)
	}
	for _, b := range blocks {
		p.add(compact(b))
	}
	return p.message()
}

func toolAnswer(id, text string) agent.Message {
	return agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: id, Name: "weather_lookup", Text: text})}}
}

// foreignTurn is the same exchange as another provider left it: neutral
// parts only, no raw part for this adapter.
func foreignTurn() agent.Message {
	return agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{
		agent.TextPart("Searching."),
		agent.SearchCallPart(agent.SearchCall{ID: "tsc_1", Where: agent.WhereProvider, Names: []string{"weather_lookup"}}),
		agent.SearchResultPart(agent.SearchResult{CallID: "tsc_1", Where: agent.WhereProvider, Tools: []string{"weather_lookup"}}),
		agent.ToolCallPart(agent.ToolCall{ID: "call_9", Name: "weather_lookup", Input: json.RawMessage(`{"city":"Berlin"}`)}),
		agent.RawPart("openai", "responses", json.RawMessage(`[{"type":"tool_search_call"}]`)),
	}}
}

func TestGoldenPayloads(t *testing.T) {
	history := []agent.Message{user("Weather in Berlin?"), searchTurn(), toolAnswer("toolu_01B", "sunny")}
	clientHistory := []agent.Message{
		user("Weather in Berlin?"),
		{Role: agent.RoleAssistant, Parts: []agent.Part{
			agent.SearchCallPart(agent.SearchCall{ID: "toolu_S", Where: agent.WhereClient, Query: "weather"}),
			agent.RawPart("anthropic", "messages", json.RawMessage(`[{"type":"tool_use","id":"toolu_S","name":"tool_search","input":{"query":"weather"}}]`)),
		}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.SearchResultPart(agent.SearchResult{CallID: "toolu_S", Where: agent.WhereClient, Tools: []string{"weather_lookup", "gone_tool"}})}},
	}
	cases := []struct {
		name string
		req  agent.Request
	}{
		{"plain", agent.Request{Model: nativeModel, System: "Be brief.", Tools: []agent.ToolDef{readFile}, Messages: []agent.Message{user("hi")}, Search: agent.SearchNative}},
		{"no_tools", agent.Request{Model: nativeModel, Messages: []agent.Message{user("hi")}, NoStream: true}},
		{"native_bm25", agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile}, Deferred: []agent.ToolDef{weather, stock}, Messages: history, Search: agent.SearchNative}},
		{"native_regex", agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile}, Deferred: []agent.ToolDef{weather, stock}, Messages: []agent.Message{user("hi")}, Search: agent.SearchNative, SearchAlgo: "regex"}},
		{"native_only_deferred", agent.Request{Model: nativeModel, Deferred: []agent.ToolDef{weather, stock}, Messages: []agent.Message{user("hi")}, Search: agent.SearchNative}},
		{"client_fallback_old_model", agent.Request{Model: "claude-3-5-haiku-20241022", Tools: []agent.ToolDef{readFile}, Deferred: []agent.ToolDef{weather, stock}, Messages: history, Search: agent.SearchNative}},
		{"client_history", agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile}, Deferred: []agent.ToolDef{weather, stock}, Messages: clientHistory, Search: agent.SearchClient}},
		{"off", agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile}, Deferred: []agent.ToolDef{weather, stock}, Messages: history, Search: agent.SearchOff}},
		{"foreign_history_native", agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile}, Deferred: []agent.ToolDef{weather, stock}, Messages: []agent.Message{user("Weather?"), foreignTurn(), toolAnswer("call_9", "sunny")}, Search: agent.SearchNative}},
		{"foreign_history_off", agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile, weather, stock}, Messages: []agent.Message{user("Weather?"), foreignTurn(), toolAnswer("call_9", "sunny")}, Search: agent.SearchOff}},
		{"tool_result_image", agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile}, Messages: []agent.Message{user("show"),
			{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: "toolu_1", Name: "read_file", Input: json.RawMessage(`{"path":"a.png"}`)})}},
			{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "toolu_1", Text: "an image", Images: []agent.Image{{MediaType: "image/png", Data: "iVBORw0KGgo="}}, IsError: false})}},
			{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("and?")}},
		}}},
		{"provider_tools", agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile}, Deferred: []agent.ToolDef{weather}, Messages: []agent.Message{user("hi")}, Search: agent.SearchNative,
			ProviderTools: []agent.ProviderTool{
				{Alias: "web_search", Options: json.RawMessage(`{"max_uses":2}`)},
				{Alias: "web_search", Options: json.RawMessage(`{"max_uses":5,"allowed_domains":["example.com"]}`)},
				{Alias: "web_fetch"},
				{Alias: "code_execution"},
				{Alias: "mcp", Options: json.RawMessage(`{"name":"docs","url":"https://mcp.example.com/mcp","authorization_token":"tok","allowed_tools":["search_docs"]}`)},
				{Raw: json.RawMessage(`{"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}`)},
			}}},
	}
	p := New(Options{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body, _, err := p.Render(&c.req)
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, body, "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			path := filepath.Join("testdata", "golden", c.name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(pretty.Bytes(), want) {
				t.Errorf("payload differs from %s (run with -update to accept):\n%s", path, pretty.Bytes())
			}
		})
	}
}

func toolsOf(t *testing.T, body []byte) json.RawMessage {
	t.Helper()
	var w struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	return w.Tools
}

// The tools array is a function of the settings alone: discoveries in the
// history never change it.
func TestToolsIdenticalBeforeAndAfterDiscoveries(t *testing.T) {
	p := New(Options{})
	for _, mode := range []agent.SearchMode{agent.SearchNative, agent.SearchClient, agent.SearchOff} {
		base := agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile}, Deferred: []agent.ToolDef{weather, stock}, Search: mode}
		before := base
		before.Messages = []agent.Message{user("Weather in Berlin?")}
		after := base
		after.Messages = []agent.Message{user("Weather in Berlin?"), searchTurn(), toolAnswer("toolu_01B", "sunny"),
			{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Sunny.")}}, user("Thanks")}
		b1, _, err := p.Render(&before)
		if err != nil {
			t.Fatal(err)
		}
		b2, _, err := p.Render(&after)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(toolsOf(t, b1), toolsOf(t, b2)) {
			t.Errorf("%s: tools differ:\n%s\n%s", mode, toolsOf(t, b1), toolsOf(t, b2))
		}
		r1, _ := buildRequest(&before, agent.ResolveSearch(p, &before))
		r2, _ := buildRequest(&after, agent.ResolveSearch(p, &after))
		sum := sha256.Sum256(toolsOf(t, b1))
		if r1.toolsHash != r2.toolsHash || r1.toolsHash != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: tools hash %s / %s", mode, r1.toolsHash, r2.toolsHash)
		}
	}
}

// With nothing deferred, asking for native or client search changes nothing.
func TestNothingDeferredIsPlainPayload(t *testing.T) {
	p := New(Options{})
	var bodies [][]byte
	for _, mode := range []agent.SearchMode{agent.SearchOff, agent.SearchNative, agent.SearchClient} {
		req := agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile, weather}, Messages: []agent.Message{user("hi")}, Search: mode}
		b, resolved, err := p.Render(&req)
		if err != nil {
			t.Fatal(err)
		}
		if resolved != agent.SearchOff {
			t.Errorf("%s resolved to %s with nothing deferred", mode, resolved)
		}
		for _, bad := range []string{"defer_loading", "tool_search"} {
			if bytes.Contains(b, []byte(bad)) {
				t.Errorf("%s: plain payload mentions %s: %s", mode, bad, b)
			}
		}
		bodies = append(bodies, b)
	}
	if !bytes.Equal(bodies[0], bodies[1]) || !bytes.Equal(bodies[0], bodies[2]) {
		t.Errorf("payloads differ:\n%s\n%s\n%s", bodies[0], bodies[1], bodies[2])
	}
}

// Search blocks go back to the API only while the request still carries
// deferred tools and searches natively.
func TestSearchBlocksReplayedOnlyWhenNative(t *testing.T) {
	history := []agent.Message{user("Weather in Berlin?"), searchTurn(), toolAnswer("toolu_01B", "sunny")}
	raw := history[1].RawFor("anthropic", "messages").Data
	cases := []struct {
		name     string
		req      agent.Request
		verbatim bool
		client   bool
		fn       bool // function form: definitions as text, no tool_reference
	}{
		{"native", agent.Request{Model: nativeModel, Deferred: []agent.ToolDef{weather, stock}, Tools: []agent.ToolDef{readFile}, Search: agent.SearchNative}, true, false, false},
		{"client mode", agent.Request{Model: nativeModel, Deferred: []agent.ToolDef{weather, stock}, Tools: []agent.ToolDef{readFile}, Search: agent.SearchClient}, false, true, false},
		{"old model", agent.Request{Model: "claude-opus-4-1-20250805", Deferred: []agent.ToolDef{weather, stock}, Tools: []agent.ToolDef{readFile}, Search: agent.SearchNative}, false, false, true},
		{"past the wire budget", agent.Request{Model: nativeModel, Deferred: []agent.ToolDef{weather, stock}, Tools: []agent.ToolDef{readFile}, Search: agent.SearchNative, WireBudget: 10}, false, false, true},
		{"client mode past the wire budget", agent.Request{Model: nativeModel, Deferred: []agent.ToolDef{weather, stock}, Tools: []agent.ToolDef{readFile}, Search: agent.SearchClient, WireBudget: 10}, false, false, true},
		{"past the API's request size", agent.Request{Model: nativeModel, Deferred: []agent.ToolDef{weather, stock, {Name: "huge", Description: strings.Repeat("x", maxDeferredBytes), Schema: json.RawMessage(`{"type":"object"}`)}}, Tools: []agent.ToolDef{readFile}, Search: agent.SearchNative}, false, false, true},
		{"past the API's deferred tool limit", agent.Request{Model: nativeModel, Deferred: append([]agent.ToolDef{weather, stock}, manyTools(maxDeferred)...), Tools: []agent.ToolDef{readFile}, Search: agent.SearchNative}, false, false, true},
		{"nothing deferred any more", agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile, weather, stock}, Search: agent.SearchNative}, false, false, false},
		{"off", agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile, weather, stock}, Search: agent.SearchOff}, false, false, false},
	}
	p := New(Options{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.req.Messages = history
			b, _, err := p.Render(&c.req)
			if err != nil {
				t.Fatal(err)
			}
			if got := bytes.Contains(b, raw); got != c.verbatim {
				t.Errorf("raw replayed verbatim = %v, want %v", got, c.verbatim)
			}
			hasServer := bytes.Contains(b, []byte(`"server_tool_use"`)) || bytes.Contains(b, []byte(`"tool_search_tool_result"`))
			if hasServer != c.verbatim {
				t.Errorf("server search blocks present = %v, want %v: %s", hasServer, c.verbatim, b)
			}
			client := bytes.Contains(b, []byte(`"name":"tool_search","input":{"query":"weather"}`)) &&
				bytes.Contains(b, []byte(`{"type":"tool_result","tool_use_id":"toolu_search_01A","content":[{"type":"tool_reference","tool_name":"weather_lookup"}]}`))
			if client != c.client {
				t.Errorf("client-form search = %v, want %v: %s", client, c.client, b)
			}
			fn := bytes.Contains(b, []byte(`"name":"tool_search","input":{"query":"weather"}`)) &&
				bytes.Contains(b, []byte(`"name":"tool_call","input":{"name":"weather_lookup","arguments":{"city":"Berlin"}}`)) &&
				bytes.Contains(b, []byte(`\"name\":\"weather_lookup\"`))
			if fn != c.fn {
				t.Errorf("function-form search = %v, want %v: %s", fn, c.fn, b)
			}
			if c.fn && (bytes.Contains(b, []byte("defer_loading")) || bytes.Contains(b, []byte("tool_reference"))) {
				t.Errorf("function form carries defer_loading or tool_reference: %s", b)
			}
			if bytes.Contains(b, []byte(`"tool_use_id":"srvtoolu_`)) && !c.verbatim {
				t.Errorf("a srvtoolu_ id is answered: %s", b)
			}
			if !bytes.Contains(b, []byte(`"text":"Searching."`)) || !bytes.Contains(b, []byte(`"id":"toolu_01B"`)) {
				t.Errorf("other blocks lost: %s", b)
			}
		})
	}
}

// manyTools is n small tools, t0 to tN-1.
func manyTools(n int) []agent.ToolDef {
	out := make([]agent.ToolDef, n)
	for i := range out {
		out[i] = agent.ToolDef{Name: "t" + strconv.Itoa(i), Schema: json.RawMessage(`{"type":"object"}`)}
	}
	return out
}

// An answer cut off right after a search call has no result coming: the
// call is not replayed (half a pair is a 400). The last complete answer
// that ends with a search call is replayed: the API resumes it.
func TestUnpairedServerCall(t *testing.T) {
	open := parsedMessage(`[{"type":"text","text":"hm"},{"type":"server_tool_use","id":"srvtoolu_X","name":"tool_search_tool_bm25","input":{"query":"w"}}]`)
	p := New(Options{})
	req := agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile}, Deferred: []agent.ToolDef{weather}, Search: agent.SearchNative}
	req.Messages = []agent.Message{user("a"), open}
	b, _, _ := p.Render(&req)
	if !bytes.Contains(b, []byte("srvtoolu_X")) {
		t.Errorf("open call at the end dropped: %s", b)
	}
	cut := open
	cut.Interrupted = true
	req.Messages = []agent.Message{user("a"), cut, user("go on")}
	b, _, _ = p.Render(&req)
	if bytes.Contains(b, []byte("srvtoolu_X")) {
		t.Errorf("interrupted half pair replayed: %s", b)
	}
	if !strings.Contains(string(b), `"text":"hm"`) {
		t.Errorf("text of the cut answer lost: %s", b)
	}
}

// A regular-expression search from elsewhere (another provider's client
// search) goes back in the client form between slashes, as the client
// search reads a regular expression, not as a ranked query for its bare
// pattern.
func TestClientSearchPatternReplayed(t *testing.T) {
	msgs := []agent.Message{
		user("Which weather tools?"),
		{Role: agent.RoleAssistant, Parts: []agent.Part{
			agent.SearchCallPart(agent.SearchCall{ID: "call_7", Where: agent.WhereClient, Pattern: "^weather", Limit: 3}),
		}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.SearchResultPart(agent.SearchResult{CallID: "call_7", Where: agent.WhereClient, Tools: []string{"weather_lookup"}})}},
	}
	req := agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile}, Deferred: []agent.ToolDef{weather, stock}, Messages: msgs, Search: agent.SearchClient}
	b, _, err := New(Options{}).Render(&req)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"name":"tool_search","input":{"query":"/^weather/","limit":3}`; !bytes.Contains(b, []byte(want)) {
		t.Errorf("payload lacks %s: %s", want, b)
	}
}
