package anthropic_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/tools"
)

func sessionFor(t *testing.T, srv *anthropictest.Server, model string, o anthropic.Options) *agent.Session {
	o.APIKey, o.BaseURL = anthropictest.DefaultAPIKey, srv.URL
	return agent.New(agent.Config{
		Provider: anthropic.New(o), Model: model, Tools: weatherTools(t), Search: agent.SearchNative,
		Searcher: clientSearcher{[]string{"weather_lookup"}}, Backoff: time.Millisecond,
	})
}

func allAccepted(t *testing.T, srv *anthropictest.Server) []*anthropictest.Request {
	t.Helper()
	reqs := srv.Requests()
	for i, r := range reqs {
		if r.Status != 200 {
			t.Fatalf("request %d rejected: %d %s", i, r.Status, r.Rejection)
		}
	}
	return reqs
}

func toolRan(evs []agent.Event, name string) bool {
	for _, e := range evs {
		if e.Type == agent.EventToolFinished && e.Tool != nil && e.Tool.Name == name && !e.Tool.IsError {
			return true
		}
	}
	return false
}

// Claude Opus 4.1 and older have no tool search: the fake rejects
// defer_loading as the API does, and the adapter uses the two-function form.
func TestOldClaudeSearchesThroughFunctions(t *testing.T) {
	for _, model := range []string{"claude-opus-4-1-20250805", "claude-sonnet-4-20250514"} {
		t.Run(model, func(t *testing.T) {
			srv := anthropictest.NewServer(t)
			srv.Script = anthropictest.NewScript(
				anthropictest.Turn{Text: "Searching.", Search: "weather", Call: "$found", Input: `{"city":"Berlin"}`},
				anthropictest.Turn{Text: "Sunny."},
			)
			s := sessionFor(t, srv, model, anthropic.Options{})
			evs, err := run(t, s, "Weather in Berlin?")
			if err != nil {
				t.Fatal(err)
			}
			reqs := allAccepted(t, srv)
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3 (search, call, answer)", len(reqs))
			}
			for _, r := range reqs {
				if bytes.Contains(r.Body, []byte("defer_loading")) || bytes.Contains(r.Body, []byte("tool_reference")) {
					t.Fatalf("a request without deferral carries defer_loading or tool_reference: %s", r.Body)
				}
			}
			if !toolRan(evs, "weather_lookup") {
				t.Errorf("weather_lookup did not run through tool_call: %+v", evs)
			}
		})
	}
}

// Past the wire budget a model with tool search gets the two functions too:
// no request carries a deferred definition, so its size does not depend on
// the catalog's, and the found tool runs through tool_call.
func TestWireBudgetSearchesThroughFunctions(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Script = anthropictest.NewScript(
		anthropictest.Turn{Text: "Searching.", Search: "weather", Call: "$found", Input: `{"city":"Berlin"}`},
		anthropictest.Turn{Text: "Sunny."},
	)
	s := sessionFor(t, srv, "claude-sonnet-4-5", anthropic.Options{})
	_ = s.Override(func(turn *agent.TurnContext) { turn.WireBudget = 10 })
	evs, err := run(t, s, "Weather in Berlin?")
	if err != nil {
		t.Fatal(err)
	}
	reqs := allAccepted(t, srv)
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (search, call, answer)", len(reqs))
	}
	for _, r := range reqs {
		if bytes.Contains(r.Body, []byte("defer_loading")) || bytes.Contains(r.Body, []byte("tool_reference")) || bytes.Contains(r.Body, []byte("tool_search_tool_")) {
			t.Fatalf("a request past the wire budget carries deferral: %s", r.Body)
		}
	}
	if !toolRan(evs, "weather_lookup") {
		t.Errorf("weather_lookup did not run through tool_call: %+v", evs)
	}
}

// Past the API's 10,000 deferred tools (the fake's rule) a native-search
// model searches through the two functions, whatever the wire budget.
func TestDeferredCountLimitSearchesThroughFunctions(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Script = anthropictest.NewScript(
		anthropictest.Turn{Text: "Searching.", Search: "weather", Call: "$found", Input: `{"city":"Berlin"}`},
		anthropictest.Turn{Text: "Sunny."},
	)
	s := sessionFor(t, srv, "claude-sonnet-4-5", anthropic.Options{})
	var many []tools.Tool
	for i := range anthropictest.MaxDeferred {
		many = append(many, tools.Tool{Name: "t" + strconv.Itoa(i), Schema: json.RawMessage(`{"type":"object"}`)})
	}
	if err := s.Tools().Add([]tools.Option{tools.Defer(true)}, many...); err != nil {
		t.Fatal(err)
	}
	evs, err := run(t, s, "Weather in Berlin?")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range allAccepted(t, srv) {
		if bytes.Contains(r.Body, []byte("defer_loading")) || bytes.Contains(r.Body, []byte("tool_search_tool_")) {
			t.Fatalf("a request with %d deferred tools carries deferral", anthropictest.MaxDeferred+2)
		}
	}
	if !toolRan(evs, "weather_lookup") {
		t.Errorf("weather_lookup did not run through tool_call")
	}
}

// The fake's rule itself: deferral sent to a model without it is the API's 400.
func TestFakeRejectsDeferralOnOldModels(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Script = anthropictest.NewScript(anthropictest.Turn{Text: "hi"})
	body := `{"model":"claude-opus-4-1","max_tokens":1024,"stream":false,"messages":[{"role":"user","content":"hi"}],` +
		`"tools":[{"name":"a","input_schema":{"type":"object"}},{"name":"b","input_schema":{"type":"object"},"defer_loading":true}]}`
	status, msg := post(t, srv, body)
	if status != 400 || msg != "tools.1.custom.defer_loading: Extra inputs are not permitted" {
		t.Errorf("got %d %q", status, msg)
	}
	body = strings.Replace(body, "claude-opus-4-1", "glm-4.6", 1)
	if status, msg := post(t, srv, body); status != 400 || !strings.HasPrefix(msg, "Deferred custom tools are only supported on Anthropic models") {
		t.Errorf("got %d %q", status, msg)
	}
}

// An Anthropic-compatible endpoint declared without deferral in the models
// table gets the function form even under --search client.
func TestEndpointDeclaredWithoutDeferral(t *testing.T) {
	no := false
	tab, err := (*models.Table)(nil).With(map[string]models.Override{"corp-claude": {Like: "claude-sonnet-4-5", DeferLoading: &no, NativeSearch: &no}})
	if err != nil {
		t.Fatal(err)
	}
	srv := anthropictest.NewServer(t)
	srv.Models = tab
	srv.Script = anthropictest.NewScript(
		anthropictest.Turn{Search: "weather", Call: "$found", Input: `{"city":"Oslo"}`},
		anthropictest.Turn{Text: "Cold."},
	)
	s := sessionFor(t, srv, "corp-claude", anthropic.Options{Models: tab})
	_ = s.Override(func(turn *agent.TurnContext) { turn.Search = agent.SearchClient })
	evs, err := run(t, s, "Weather in Oslo?")
	if err != nil {
		t.Fatal(err)
	}
	allAccepted(t, srv)
	if !toolRan(evs, "weather_lookup") {
		t.Error("weather_lookup did not run")
	}
}

func post(t *testing.T, srv *anthropictest.Server, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/messages", strings.NewReader(body))
	req.Header.Set("x-api-key", anthropictest.DefaultAPIKey)
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e.Error.Message
}

// --effort high: adaptive thinking on models that have it, a budget below
// max_tokens on the others; thinking blocks replayed with their signatures
// through a search-and-call turn; the thinking streams as reasoning events.
func TestEffortThinkingReplayed(t *testing.T) {
	cases := []struct {
		model, want string
	}{
		{"claude-opus-4-6", `"thinking":{"type":"adaptive"},"output_config":{"effort":"high"}`},
		{"claude-opus-4-7", `"thinking":{"type":"adaptive"},"output_config":{"effort":"high"}`},
		{"claude-sonnet-4-5-20250929", `"thinking":{"type":"enabled","budget_tokens":16384}`},
		{"claude-opus-4-1", `"thinking":{"type":"enabled","budget_tokens":16384}`},
	}
	for _, c := range cases {
		for _, noStream := range []bool{false, true} {
			t.Run(c.model+map[bool]string{false: "/stream", true: "/json"}[noStream], func(t *testing.T) {
				srv := anthropictest.NewServer(t)
				srv.Script = anthropictest.NewScript(
					anthropictest.Turn{Text: "Let me look.", Search: "weather", Call: "$found", Input: `{"city":"Berlin"}`},
					anthropictest.Turn{Text: "Sunny."},
				)
				s := sessionFor(t, srv, c.model, anthropic.Options{})
				_ = s.Override(func(turn *agent.TurnContext) { turn.Effort, turn.NoStream = "high", noStream })
				evs, err := run(t, s, "Weather in Berlin?")
				if err != nil {
					t.Fatal(err)
				}
				reqs := allAccepted(t, srv)
				for _, r := range reqs {
					if !bytes.Contains(r.Body, []byte(c.want)) {
						t.Fatalf("request lacks %s: %s", c.want, r.Body)
					}
				}
				last := reqs[len(reqs)-1]
				if !bytes.Contains(last.Body, []byte(`"type":"thinking"`)) || !bytes.Contains(last.Body, []byte(`"signature":"`)) {
					t.Errorf("thinking blocks not replayed: %s", last.Body)
				}
				reasoning := false
				for _, e := range evs {
					reasoning = reasoning || e.Type == agent.EventReasoningDelta && e.Text != ""
				}
				if !reasoning {
					t.Error("no reasoning_delta event")
				}
			})
		}
	}
}

// The fake's thinking rules, each the API's 400.
func TestFakeThinkingRules(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Script = anthropictest.NewScript(anthropictest.Turn{Text: "hi"}, anthropictest.Turn{Text: "hi"})
	base := `{"model":"%s","max_tokens":%d,"stream":false,"messages":[{"role":"user","content":"hi"}]%s}`
	cases := []struct {
		model string
		max   int
		extra string
		want  string
	}{
		{"claude-sonnet-4-5", 4096, `,"thinking":{"type":"enabled","budget_tokens":8000}`, "`max_tokens` must be greater than `thinking.budget_tokens`"},
		{"claude-sonnet-4-5", 4096, `,"thinking":{"type":"enabled","budget_tokens":500}`, "budget_tokens: Input should be greater than or equal to 1024"},
		{"claude-opus-4-7", 4096, `,"thinking":{"type":"enabled","budget_tokens":2000}`, "thinking.type.enabled is not supported for this model"},
		{"claude-sonnet-4-5", 4096, `,"thinking":{"type":"adaptive"}`, "thinking.type.adaptive is not supported"},
		{"claude-sonnet-4-5", 4096, `,"thinking":{"type":"enabled","budget_tokens":2000},"temperature":0.2`, "`temperature` may only be set to 1 when thinking is enabled"},
		{"claude-sonnet-4-5", 64001, ``, "max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5"},
		{"claude-opus-4-6", 4096, `,"output_config":{"effort":"xhigh"}`, "output_config.effort: Input should be 'low', 'medium', 'high' or 'max'"},
		{"claude-opus-4-5", 4096, `,"output_config":{"effort":"max"}`, "output_config.effort: Input should be 'low', 'medium' or 'high'"},
		{"claude-opus-4-5", 4096, `,"thinking":{"type":"adaptive"}`, "thinking.type.adaptive is not supported"},
		{"claude-sonnet-4-5", 4096, `,"output_config":{"effort":"high"}`, "output_config.effort: This model does not support the effort parameter."},
	}
	for _, c := range cases {
		status, msg := post(t, srv, fmt.Sprintf(base, c.model, c.max, c.extra))
		if status != 400 || !strings.Contains(msg, c.want) {
			t.Errorf("%s %s: got %d %q, want %q", c.model, c.extra, status, msg, c.want)
		}
	}
	// A tool loop whose assistant message lost its thinking block.
	body := `{"model":"claude-sonnet-4-5","max_tokens":8000,"stream":false,"thinking":{"type":"enabled","budget_tokens":2000},` +
		`"tools":[{"name":"a","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"a","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`
	if status, msg := post(t, srv, body); status != 400 || !strings.Contains(msg, "a final `assistant` message must start with a thinking block") {
		t.Errorf("missing thinking block: got %d %q", status, msg)
	}
	tampered := strings.Replace(body, `{"type":"tool_use"`, `{"type":"thinking","thinking":"x","signature":"forged"},{"type":"tool_use"`, 1)
	if status, msg := post(t, srv, tampered); status != 400 || !strings.Contains(msg, "Invalid `signature` in `thinking` block") {
		t.Errorf("forged signature: got %d %q", status, msg)
	}
}

// Opus 4.5 takes output_config.effort (low, medium, high) and no thinking
// budget; --effort max sends high with a warning. A retired model is a 404.
func TestOpus45EffortAndRetiredModels(t *testing.T) {
	for _, c := range []struct{ effort, want, warn string }{
		{"medium", `"output_config":{"effort":"medium"}`, ""},
		{"max", `"output_config":{"effort":"high"}`, "--effort max: claude-opus-4-5-20251101 takes low, medium, high; sending high"},
	} {
		srv := anthropictest.NewServer(t)
		srv.Script = anthropictest.NewScript(anthropictest.Turn{Text: "ok"})
		s := sessionFor(t, srv, "claude-opus-4-5-20251101", anthropic.Options{})
		_ = s.Override(func(turn *agent.TurnContext) { turn.Effort = c.effort })
		evs, err := run(t, s, "hi")
		if err != nil {
			t.Fatal(err)
		}
		r := allAccepted(t, srv)[0]
		if !bytes.Contains(r.Body, []byte(c.want)) || bytes.Contains(r.Body, []byte(`"thinking"`)) {
			t.Errorf("--effort %s: %s", c.effort, r.Body)
		}
		var warns []string
		for _, e := range evs {
			if e.Type == agent.EventWarning {
				warns = append(warns, e.Text)
			}
		}
		if c.warn == "" && len(warns) != 0 || c.warn != "" && (len(warns) != 1 || warns[0] != c.warn) {
			t.Errorf("--effort %s: warnings %q, want %q", c.effort, warns, c.warn)
		}
	}
	srv := anthropictest.NewServer(t)
	for _, m := range []string{"claude-3-5-haiku-20241022", "claude-3-7-sonnet-20250219"} {
		if status, msg := post(t, srv, `{"model":"`+m+`","max_tokens":1024,"messages":[{"role":"user","content":"hi"}]}`); status != 404 || msg != "model: "+m {
			t.Errorf("%s: got %d %q, want 404 for a retired model", m, status, msg)
		}
	}
}

// A tool call cut by max_tokens is asked again once with the model's
// largest output limit; the per-model default is on the wire.
func TestCutToolCallRetriedWithMaxOutput(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		t.Run(map[bool]string{false: "stream", true: "json"}[noStream], func(t *testing.T) {
			srv := anthropictest.NewServer(t)
			srv.Script = anthropictest.NewScript(
				anthropictest.Turn{Text: "Writing.", Call: "read_file", Input: `{"path":"a-very-long-file-name.txt"}`, NeedTokens: 40_000},
				anthropictest.Turn{Text: "Done."},
			)
			s := sessionFor(t, srv, "claude-sonnet-4-5-20250929", anthropic.Options{})
			_ = s.Override(func(turn *agent.TurnContext) { turn.NoStream = noStream })
			evs, err := run(t, s, "Write it.")
			if err != nil {
				t.Fatal(err)
			}
			reqs := allAccepted(t, srv)
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3 (cut, retry, answer)", len(reqs))
			}
			if !bytes.Contains(reqs[0].Body, []byte(`"max_tokens":32000`)) || !bytes.Contains(reqs[1].Body, []byte(`"max_tokens":64000`)) ||
				!bytes.Contains(reqs[2].Body, []byte(`"max_tokens":32000`)) {
				t.Errorf("max_tokens not 32000 (default), 64000 (retry), 32000: %s | %s | %s", reqs[0].Body[:60], reqs[1].Body[:60], reqs[2].Body[:60])
			}
			if !toolRan(evs, "read_file") {
				t.Error("the retried call did not run")
			}
			warned := false
			for _, e := range evs {
				warned = warned || e.Type == agent.EventWarning && strings.Contains(e.Text, "cut at the output limit of 32000 tokens")
			}
			if !warned {
				t.Error("no warning about the cut call")
			}
		})
	}
}

// Text cut by the limit is kept, marked by a warning.
func TestCutTextKeptAndMarked(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Enqueue(anthropictest.Reply{Content: []json.RawMessage{anthropictest.Text("The first half of")}, StopReason: "max_tokens"})
	s := sessionFor(t, srv, "claude-sonnet-4-5", anthropic.Options{})
	_ = s.Override(func(turn *agent.TurnContext) { turn.MaxTokens = 5 })
	evs, err := run(t, s, "Write an essay.")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Messages()[1].Text(); got != "The first half of" {
		t.Errorf("cut text not kept: %q", got)
	}
	warned := false
	for _, e := range evs {
		warned = warned || e.Type == agent.EventWarning && strings.Contains(e.Text, "the answer was cut at the output limit of 5 tokens")
	}
	if !warned {
		t.Errorf("no warning: %+v", evs)
	}
}

// The code-execution container of a response is named in the next
// request, so the files written there are still there.
func TestContainerCarried(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		srv := anthropictest.NewServer(t)
		srv.Enqueue(anthropictest.Reply{Content: []json.RawMessage{anthropictest.Text("Wrote out.csv.")}, Container: "container_011abc"},
			anthropictest.Reply{Content: []json.RawMessage{anthropictest.Text("It has 3 rows.")}})
		s := sessionFor(t, srv, "claude-sonnet-4-5", anthropic.Options{})
		_ = s.Override(func(turn *agent.TurnContext) { turn.NoStream = noStream })
		if _, err := run(t, s, "Write out.csv"); err != nil {
			t.Fatal(err)
		}
		if _, err := run(t, s, "How many rows?"); err != nil {
			t.Fatal(err)
		}
		reqs := allAccepted(t, srv)
		if bytes.Contains(reqs[0].Body, []byte(`"container"`)) || !bytes.Contains(reqs[1].Body, []byte(`"container":"container_011abc"`)) {
			t.Errorf("container not carried: %s", reqs[1].Body)
		}
	}
}

// With the tool search tool in the request, the MCP connector's tools can
// be deferred: on the toolset's default_config, never per tool, and the
// toolset then carries no cache breakpoint.
func TestConnectorDeferred(t *testing.T) {
	p := anthropic.New(anthropic.Options{})
	mcp := agent.ProviderTool{Alias: "mcp", Options: json.RawMessage(`{"name":"docs","url":"https://mcp.example.com/mcp","defer_loading":true}`)}
	req := &agent.Request{Model: "claude-sonnet-4-5", Search: agent.SearchNative, ProviderTools: []agent.ProviderTool{mcp},
		Tools:    []agent.ToolDef{{Name: "read_file", Schema: json.RawMessage(`{"type":"object"}`)}},
		Deferred: []agent.ToolDef{{Name: "weather_lookup", Schema: json.RawMessage(`{"type":"object"}`)}},
		Messages: []agent.Message{{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hi")}}}}
	b, _, err := p.Render(req)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`{"type":"mcp_toolset","mcp_server_name":"docs","default_config":{"defer_loading":true}}`)) {
		t.Errorf("connector not deferred: %s", b)
	}
	req.Search = agent.SearchOff
	if b, _, _ = p.Render(req); bytes.Contains(b, []byte(`"defer_loading":true`)) {
		t.Errorf("deferred without the search tool: %s", b)
	}
}

// --effort on a tool loop another provider began: the turn being answered
// has no thinking block, so that request goes without thinking (the API
// would answer 400), and the next one thinks again.
func TestThinkingAfterForeignToolTurn(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Script = anthropictest.NewScript(anthropictest.Turn{Text: "Read it."}, anthropictest.Turn{Text: "Next."})
	s := sessionFor(t, srv, "claude-sonnet-4-5", anthropic.Options{})
	_ = s.Override(func(turn *agent.TurnContext) { turn.Effort = "high" })
	s.Reset([]agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("Read a.txt")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"a.txt"}`)}),
			agent.RawPart("openai", "responses", json.RawMessage(`[]`))}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "call_1", Text: "hello"})}},
	})
	evs, err := run(t, s, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, s, "And now?"); err != nil {
		t.Fatal(err)
	}
	reqs := allAccepted(t, srv)
	if bytes.Contains(reqs[0].Body, []byte(`"thinking":{`)) || !bytes.Contains(reqs[1].Body, []byte(`"thinking":{"type":"enabled"`)) {
		t.Errorf("thinking: first %s\nsecond %s", reqs[0].Body, reqs[1].Body)
	}
	noticed := false
	for _, e := range evs {
		noticed = noticed || e.Type == agent.EventWarning && strings.Contains(e.Text, "thinking is off")
	}
	if !noticed {
		t.Error("no notice")
	}
}

// Another provider's call whose arguments were not an object (Chat keeps
// them as a JSON string) goes back with an object input: the API takes
// nothing else (the fake's rule).
func TestForeignCallInputIsAnObject(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Script = anthropictest.NewScript(anthropictest.Turn{Text: "ok"})
	req := &agent.Request{Model: "claude-sonnet-4-5", MaxTokens: 100, NoStream: true,
		Tools: []agent.ToolDef{{Name: "read_file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		Messages: []agent.Message{
			{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("read it")}},
			{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: "call_1", Name: "read_file", Input: json.RawMessage(`"not json {"`)})}},
			{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "call_1", Name: "read_file", Text: "invalid arguments", IsError: true})}},
		}}
	body, _, err := anthropic.New(anthropic.Options{}).Render(req)
	if err != nil {
		t.Fatal(err)
	}
	if status, msg := post(t, srv, string(body)); status != 200 {
		t.Fatalf("%d %s: %s", status, msg, body)
	}
}
