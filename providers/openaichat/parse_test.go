package openaichat

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/internal/searchargs"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
)

func clientReq(noStream bool) *agent.Request {
	return &agent.Request{Model: "m", Tools: []agent.ToolDef{readFile, dotted}, Deferred: []agent.ToolDef{weather, stocks},
		Messages: []agent.Message{user("go")}, NoStream: noStream}
}

// summary flattens a message's neutral parts for comparison.
func summary(m agent.Message) []string {
	var out []string
	for _, p := range m.Parts {
		switch p.Type {
		case agent.PartText:
			out = append(out, "text:"+p.Text)
		case agent.PartToolCall:
			out = append(out, "call:"+p.ToolCall.ID+":"+p.ToolCall.Name+":"+string(p.ToolCall.Input))
		case agent.PartSearchCall:
			c := p.SearchCall
			b, _ := json.Marshal(c)
			out = append(out, "search:"+string(b))
		case agent.PartRaw:
			out = append(out, "raw:"+p.Raw.Provider+"/"+p.Raw.API)
		}
	}
	return out
}

// Deltas split at every piece size assemble to the same message, streamed
// or not.
func TestStreamSplitAnywhere(t *testing.T) {
	turn := chattest.Turn{
		Text: "Hello, wörld ✓ — ok", Reasoning: "thinking…",
		Calls: []chattest.Call{
			chattest.DirectCall("c1", "read_file", map[string]any{"path": "a b.txt"}),
			chattest.DirectCall("c2", "github_create_issue_e877a647", map[string]any{"title": "t"}),
			chattest.SearchCall("c3", "select:weather_lookup, stock_price", 2),
			chattest.WrappedCallString("c4", "weather_lookup", map[string]any{"city": "Zürich"}),
			chattest.WrappedCall("c5", "stock_price", map[string]any{"ticker": "X"}),
		},
	}
	want := []string{
		"text:Hello, wörld ✓ — ok",
		`call:c1:read_file:{"path":"a b.txt"}`,
		`call:c2:github.create_issue:{"title":"t"}`,
		`search:{"id":"c3","where":"client","names":["weather_lookup","stock_price"],"limit":2}`,
		`call:c4:weather_lookup:{"city":"Zürich"}`,
		`call:c5:stock_price:{"ticker":"X"}`,
		"raw:openai-chat/chat.completions",
	}
	var raws []string
	for split := 1; split <= 12; split++ {
		for _, noStream := range []bool{false, true} {
			fake := chattest.NewServer(t)
			fake.AcceptReasoning = true
			fake.Split = split
			fake.Script(turn)
			p := New(Options{BaseURL: fake.BaseURL()})
			var streamed strings.Builder
			resp, err := p.Send(t.Context(), clientReq(noStream), func(e agent.StreamEvent) {
				if e.Type == agent.EventTextDelta {
					streamed.WriteString(e.Text)
				}
			})
			if err != nil {
				t.Fatalf("split %d: %v", split, err)
			}
			if got := summary(resp.Message); !reflect.DeepEqual(got, want) {
				t.Fatalf("split %d nostream %v:\n got %q\nwant %q", split, noStream, got, want)
			}
			if !noStream && streamed.String() != turn.Text {
				t.Errorf("split %d: streamed %q", split, streamed.String())
			}
			if resp.StopReason != agent.StopToolUse || resp.Resolved != agent.SearchClient || resp.ToolsHash == "" {
				t.Errorf("split %d: stop %q resolved %q hash %q", split, resp.StopReason, resp.Resolved, resp.ToolsHash)
			}
			if resp.Usage.InputTokens == 0 || resp.Usage.OutputTokens == 0 {
				t.Errorf("split %d: no usage: %+v", split, resp.Usage)
			}
			raws = append(raws, string(resp.Message.RawFor(ProviderName, APIName).Data))
		}
	}
	for _, r := range raws[1:] {
		if r != raws[0] {
			t.Fatalf("raw differs between splits:\n%s\n%s", r, raws[0])
		}
	}
	if !strings.Contains(raws[0], `"reasoning_content":"thinking…"`) {
		t.Errorf("reasoning not kept in raw: %s", raws[0])
	}
}

// sseServer answers every request with body verbatim.
func sseServer(t *testing.T, body string) *Provider {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return New(Options{BaseURL: srv.URL})
}

// What real servers do differently from OpenAI.
func TestStreamQuirks(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
		usage      agent.Usage
		err        string
	}{
		{
			name: "calls without index, whole in one chunk (Ollama)",
			body: `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_a","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"x\"}"}}]}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_b","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"y\"}"}}]}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":3}}` + "\n\n" +
				"data: [DONE]\n\n",
			want:  []string{`call:call_a:read_file:{"path":"x"}`, `call:call_b:read_file:{"path":"y"}`, "raw:openai-chat/chat.completions"},
			usage: agent.Usage{InputTokens: 10, OutputTokens: 3},
		},
		{
			name: "arguments as an object, no [DONE] after the finish reason",
			body: `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":{"path":"x"}}}]},"finish_reason":"tool_calls"}]}` + "\n\n",
			want: []string{`call:call_a:read_file:{"path":"x"}`, "raw:openai-chat/chat.completions"},
		},
		{
			name: "DeepSeek cache fields",
			body: `data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}` + "\n\n" +
				`data: {"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":5,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}}` + "\n\n" +
				"data: [DONE]\n\n",
			want:  []string{"text:hi", "raw:openai-chat/chat.completions"},
			usage: agent.Usage{InputTokens: 36, OutputTokens: 5, CacheReadTokens: 64},
		},
		{
			name: "OpenAI cached_tokens, comments and keep-alives",
			body: ": keep-alive\n\n" + `data: {"choices":[{"index":0,"delta":{"content":"a"}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}` + "\n\n" +
				`data: {"choices":[],"usage":{"prompt_tokens":2000,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":1920}}}` + "\n\n" +
				"data: [DONE]\n\n",
			want:  []string{"text:ab", "raw:openai-chat/chat.completions"},
			usage: agent.Usage{InputTokens: 80, OutputTokens: 2, CacheReadTokens: 1920},
		},
		{
			name: "error chunk mid-stream (OpenRouter, vLLM)",
			body: `data: {"choices":[{"index":0,"delta":{"content":"par"}}]}` + "\n\n" +
				`data: {"error":{"message":"upstream overloaded","type":"server_error"}}` + "\n\n",
			want: []string{"text:par", "raw:openai-chat/chat.completions"},
			err:  "upstream overloaded",
		},
		{
			name: "ends without finish reason",
			body: `data: {"choices":[{"index":0,"delta":{"content":"half"}}]}` + "\n\n",
			want: []string{"text:half", "raw:openai-chat/chat.completions"},
			err:  "stream was cut",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := sseServer(t, tc.body)
			resp, err := p.Send(t.Context(), &agent.Request{Model: "m", Tools: []agent.ToolDef{readFile}, Messages: []agent.Message{user("x")}}, nil)
			if tc.err == "" && err != nil {
				t.Fatal(err)
			}
			if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
			if got := summary(resp.Message); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
			if !reflect.DeepEqual(tc.usage, agent.Usage{}) && !reflect.DeepEqual(resp.Usage, tc.usage) {
				t.Errorf("usage %+v, want %+v", resp.Usage, tc.usage)
			}
		})
	}
}

// A call without an id (Gemini's layer) gets one, the same in the neutral
// call and in the raw message, so the result pairs with it on replay.
func TestMissingCallID(t *testing.T) {
	p := sseServer(t, `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"type":"function","function":{"name":"read_file","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`+"\n\ndata: [DONE]\n\n")
	resp, err := p.Send(t.Context(), &agent.Request{Model: "m", Tools: []agent.ToolDef{readFile}, Messages: []agent.Message{user("x")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for _, pt := range resp.Message.Parts {
		if pt.ToolCall != nil {
			id = pt.ToolCall.ID
		}
	}
	if !strings.HasPrefix(id, "call_") || !strings.Contains(string(resp.Message.RawFor(ProviderName, APIName).Data), id) {
		t.Errorf("id %q not generated or not in raw %s", id, resp.Message.RawFor(ProviderName, APIName).Data)
	}
}

// A cut stream keeps the text that arrived, marks the message interrupted,
// drops half-streamed calls, and says the stream was cut.
func TestStreamCutKeepsPartialText(t *testing.T) {
	for _, cut := range []int{3, 6, 12} {
		fake := chattest.NewServer(t)
		fake.Split = 2
		fake.Script(chattest.Turn{Text: "Hello there, general reader", Calls: []chattest.Call{chattest.DirectCall("c1", "read_file", map[string]any{"path": "x"})}})
		fake.Fail(chattest.Fault{CutAfter: cut})
		p := New(Options{BaseURL: fake.BaseURL()})
		var streamed strings.Builder
		resp, err := p.Send(t.Context(), &agent.Request{Model: "m", Tools: []agent.ToolDef{readFile}, Messages: []agent.Message{user("x")}},
			func(e agent.StreamEvent) { streamed.WriteString(e.Text) })
		if err == nil || !errors.Is(err, errStreamCut) || !strings.Contains(err.Error(), "stream was cut") {
			t.Fatalf("cut %d: error %v, want stream was cut", cut, err)
		}
		if resp == nil || !resp.Message.Interrupted {
			t.Fatalf("cut %d: no interrupted partial response", cut)
		}
		text := resp.Message.Text()
		if text == "" || text != streamed.String() || !strings.HasPrefix("Hello there, general reader", text) {
			t.Errorf("cut %d: partial text %q, streamed %q", cut, text, streamed.String())
		}
		for _, pt := range resp.Message.Parts {
			if pt.ToolCall != nil {
				t.Errorf("cut %d: half-streamed call kept", cut)
			}
		}
	}
}

// A session keeps the partial answer in history and reports the cut.
func TestSessionStreamCut(t *testing.T) {
	fake := chattest.NewServer(t)
	fake.Split = 3
	fake.Script(chattest.Text("The answer is forty-two, obviously."))
	fake.Fail(chattest.Fault{CutAfter: 5})
	s := testSession(t, fake)
	err := s.Run(t.Context(), "question", func(agent.Event) {})
	if err == nil || !strings.Contains(err.Error(), "stream was cut") {
		t.Fatalf("error %v", err)
	}
	h := s.Messages()
	last := h[len(h)-1]
	if last.Role != agent.RoleAssistant || !last.Interrupted || !strings.HasPrefix("The answer is forty-two, obviously.", last.Text()) || last.Text() == "" {
		t.Errorf("history ends with %+v", last)
	}
	// And the conversation goes on, the partial text replayed as is.
	fake.Script(chattest.Text("Sorry, cut off: 42."))
	run(t, s, "again?")
	if rej := fake.Rejected(); len(rej) > 0 {
		t.Fatalf("rejected: %s", rej[0].Error)
	}
}

func TestParseSearchAndUnwrap(t *testing.T) {
	searches := []struct {
		args string
		want agent.SearchCall
	}{
		{`{"query":"weather berlin"}`, agent.SearchCall{ID: "i", Where: "client", Query: "weather berlin"}},
		{`{"query":"select:a, b ,c","limit":"3"}`, agent.SearchCall{ID: "i", Where: "client", Names: []string{"a", "b", "c"}, Limit: 3}},
		{`{"query":"/^git.*issue/","limit":4}`, agent.SearchCall{ID: "i", Where: "client", Pattern: "^git.*issue", Limit: 4}},
		{`not json`, agent.SearchCall{ID: "i", Where: "client", Query: "not json"}},
	}
	for _, tc := range searches {
		if got := searchargs.Parse("i", []byte(tc.args)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("searchargs.Parse(%s) = %+v, want %+v", tc.args, got, tc.want)
		}
		if q := tc.want.Text(); tc.args != `not json` && !strings.Contains(tc.args, strings.Split(q, ",")[0]) {
			t.Errorf("Text(%+v) = %q does not round-trip", tc.want, q)
		}
	}
	calls := []struct {
		args, name, input string
		ok                bool
	}{
		{`{"name":"w","arguments":{"city":"B"}}`, "w", `{"city":"B"}`, true},
		{`{"name":"w","arguments":"{\"city\":\"B\"}"}`, "w", `{"city":"B"}`, true},
		{`{"name":"w"}`, "w", `{}`, true},
		{`{"name":"w","arguments":"city=B"}`, "w", `"city=B"`, true},
		{`{"arguments":{}}`, "", "", false},
		{`garbage`, "", "", false},
	}
	for _, tc := range calls {
		c, ok := unwrapCall("i", tc.args)
		if ok != tc.ok || (ok && (c.Name != tc.name || string(c.Input) != tc.input)) {
			t.Errorf("unwrapCall(%s) = %+v %v", tc.args, c, ok)
		}
	}
	// An unusable wrapper stays a tool_call call for the core to reject.
	part := neutralCall("i", CallTool, `{"arguments":{}}`, &rendered{mode: agent.SearchClient})
	if part.ToolCall == nil || part.ToolCall.Name != CallTool {
		t.Errorf("bad wrapper became %+v", part)
	}
	// Outside client mode tool_search is just an unknown function.
	part = neutralCall("i", SearchTool, `{"query":"x"}`, &rendered{mode: agent.SearchOff})
	if part.ToolCall == nil || part.ToolCall.Name != SearchTool {
		t.Errorf("tool_search in off mode became %+v", part)
	}
}
