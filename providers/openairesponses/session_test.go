package openairesponses_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openairesponses"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
	"github.com/agent-dev/agent/tools"
)

// fakeSearcher finds deferred tools whose name contains a query word.
type fakeSearcher struct{ set *tools.Set }

func (f fakeSearcher) Search(_ context.Context, c agent.SearchCall) ([]string, error) {
	var out []string
	for _, t := range f.set.Deferred() {
		for _, w := range strings.Fields(strings.ToLower(c.Text())) {
			if strings.Contains(t.Name, w) {
				out = append(out, t.Name)
				break
			}
		}
	}
	return out, nil
}

func toolSet(t *testing.T) (*tools.Set, *int) {
	t.Helper()
	ran := 0
	set := tools.NewSet()
	exec := func(text string) tools.Executor {
		return func(context.Context, json.RawMessage) (tools.Result, error) {
			ran++
			return tools.Result{Text: text}, nil
		}
	}
	obj := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)
	if err := set.Add([]tools.Option{tools.Defer(false)}, tools.Tool{Name: "read_file", Description: "Read a file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`), Exec: exec("file")}); err != nil {
		t.Fatal(err)
	}
	if err := set.Add([]tools.Option{tools.Defer(true)},
		tools.Tool{Name: "get_weather", Description: "Get the current weather for a city", Schema: obj, Server: "weather", Exec: exec("sunny")},
		tools.Tool{Name: "get_forecast", Description: "Weather forecast for a city", Schema: obj, Server: "weather", Exec: exec("rain")},
		tools.Tool{Name: "stock_price", Description: "Look up a stock price", Schema: json.RawMessage(`{"type":"object","properties":{"symbol":{"type":"string"}}}`), Server: "finance", Exec: exec("42")},
	); err != nil {
		t.Fatal(err)
	}
	return set, &ran
}

func newSession(t *testing.T, srv *rt.Server, model string, mode agent.SearchMode, noStream bool) (*agent.Session, *int) {
	set, ran := toolSet(t)
	p := openairesponses.New(openairesponses.Options{APIKey: rt.DefaultKey, BaseURL: srv.URL})
	return agent.New(agent.Config{Provider: p, Model: model, Tools: set, Search: mode, NoStream: noStream,
		Searcher: fakeSearcher{set}, Backoff: time.Millisecond}), ran
}

func run(t *testing.T, s *agent.Session, text string) []agent.Event {
	t.Helper()
	var evs []agent.Event
	if err := s.Run(context.Background(), text, func(e agent.Event) { evs = append(evs, e) }); err != nil {
		t.Fatalf("turn failed: %v", err)
	}
	return evs
}

// checkRequests asserts the fake rejected nothing and every request carried
// the same tools array.
func checkRequests(t *testing.T, srv *rt.Server, want int) []map[string]json.RawMessage {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != want {
		t.Fatalf("requests = %d, want %d", len(reqs), want)
	}
	var bodies []map[string]json.RawMessage
	for i, r := range reqs {
		if r.Status != 200 {
			t.Fatalf("request %d answered %d: %s", i, r.Status, r.Error)
		}
		var b map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		if i > 0 && string(b["tools"]) != string(bodies[0]["tools"]) {
			t.Errorf("request %d tools differ:\n%s\n%s", i, b["tools"], bodies[0]["tools"])
		}
		if _, ok := b["previous_response_id"]; ok {
			t.Errorf("request %d uses previous_response_id", i)
		}
		bodies = append(bodies, b)
	}
	return bodies
}

func TestSessionSearch(t *testing.T) {
	cases := []struct {
		name     string
		model    string
		mode     agent.SearchMode
		noStream bool
		turn1    rt.Turn
		resolved agent.SearchMode
		toolsHas []string
	}{
		{"hosted stream", "gpt-5.4", agent.SearchNative, false,
			rt.Turn{rt.Reasoning(), rt.HostedSearch("weather"), rt.Call("get_weather", `{"city":"Paris"}`)},
			agent.SearchNative, []string{`{"type":"tool_search"}`, `"defer_loading":true`}},
		{"hosted json", "gpt-5.5", agent.SearchNative, true,
			rt.Turn{rt.HostedSearch("weather"), rt.Call("get_weather", `{"city":"Paris"}`)},
			agent.SearchNative, []string{`{"type":"tool_search"}`}},
		{"client tool_search", "gpt-5.4", agent.SearchClient, false,
			rt.Turn{rt.ClientSearch("weather")}, agent.SearchClient, []string{`"execution":"client"`}},
		{"client functions on older model", "gpt-4.1", agent.SearchNative, false,
			rt.Turn{rt.Call("tool_search", `{"query":"weather"}`)}, agent.SearchClient, []string{`"name":"tool_call"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := rt.NewServer(t)
			second := rt.Turn{rt.Call("get_weather", `{"city":"Paris"}`)}
			if strings.Contains(c.name, "functions") {
				second = rt.Turn{rt.Call("tool_call", `{"name":"get_weather","arguments":{"city":"Paris"}}`)}
			}
			if c.resolved == agent.SearchNative {
				srv.Script(c.turn1, rt.Turn{rt.Text("It is sunny in Paris.")}, rt.Turn{rt.Call("get_weather", `{"city":"Rome"}`)}, rt.Turn{rt.Text("Sunny in Rome too.")})
			} else {
				srv.Script(c.turn1, second, rt.Turn{rt.Text("It is sunny in Paris.")}, rt.Turn{rt.Text("Sunny in Rome too.")})
			}
			s, ran := newSession(t, srv, c.model, c.mode, c.noStream)
			evs := run(t, s, "weather in Paris?")
			run(t, s, "and Rome?")
			n := 4
			if c.resolved == agent.SearchNative {
				n = 4
			}
			bodies := checkRequests(t, srv, n)
			for _, w := range c.toolsHas {
				if !strings.Contains(string(bodies[0]["tools"]), w) {
					t.Errorf("tools lack %s: %s", w, bodies[0]["tools"])
				}
			}
			if *ran < 1 {
				t.Errorf("discovered tool never ran")
			}
			if got := s.Discovered(); !contains(got, "get_weather") {
				t.Errorf("discovered = %v", got)
			}
			var started, finished bool
			for _, e := range evs {
				started = started || e.Type == agent.EventSearchStarted
				finished = finished || e.Type == agent.EventSearchFinished
			}
			if !started || !finished {
				t.Errorf("search events started=%v finished=%v", started, finished)
			}
			if !strings.Contains(s.Messages()[len(s.Messages())-1].Text(), "Rome") {
				t.Errorf("last answer = %q", s.Messages()[len(s.Messages())-1].Text())
			}
		})
	}
}

func TestSessionPlainToolsByteIdentical(t *testing.T) {
	srv := rt.NewServer(t)
	srv.Script(rt.Turn{rt.Call("read_file", `{"path":"a"}`)}, rt.Turn{rt.Text("ok")})
	set := tools.NewSet()
	_ = set.Add(nil, tools.Tool{Name: "read_file", Description: "Read a file", Schema: json.RawMessage(`{"type":"object"}`),
		Exec: func(context.Context, json.RawMessage) (tools.Result, error) { return tools.Result{Text: "x"}, nil }})
	p := openairesponses.New(openairesponses.Options{APIKey: rt.DefaultKey, BaseURL: srv.URL})
	s := agent.New(agent.Config{Provider: p, Model: "gpt-5.4", Tools: set, Search: agent.SearchNative})
	run(t, s, "read a")
	bodies := checkRequests(t, srv, 2)
	want := `[{"type":"function","name":"read_file","description":"Read a file","parameters":{"type":"object"},"strict":false}]`
	if string(bodies[0]["tools"]) != want {
		t.Errorf("plain tools = %s\nwant %s", bodies[0]["tools"], want)
	}
}

func TestSessionRetryAndCut(t *testing.T) {
	srv := rt.NewServer(t)
	srv.FailNext(rt.Fault{Status: 429, RetryAfter: "0"})
	srv.Script(rt.Turn{rt.Text("hello there")})
	s, _ := newSession(t, srv, "gpt-5.4", agent.SearchNative, false)
	evs := run(t, s, "hi")
	warned := false
	for _, e := range evs {
		warned = warned || e.Type == agent.EventWarning
	}
	if !warned || len(srv.Requests()) != 2 {
		t.Errorf("429 not retried once with a warning: warned=%v requests=%d", warned, len(srv.Requests()))
	}

	srv.FailNext(rt.Fault{CutAfter: 5})
	err := s.Run(context.Background(), "again", func(agent.Event) {})
	if err == nil || !strings.Contains(err.Error(), "stream cut") {
		t.Fatalf("cut stream error = %v", err)
	}
	// The cut answer is kept as interrupted, and the next turn is accepted.
	srv.Script(rt.Turn{rt.Text("recovered")})
	run(t, s, "once more")
	if r := srv.Rejected(); len(r) != 1 { // the injected 429 only
		t.Errorf("rejected after cut: %v", r[len(r)-1].Error)
	}
}

func TestSendErrors(t *testing.T) {
	srv := rt.NewServer(t)
	req := &agent.Request{Model: "gpt-5.4", Messages: []agent.Message{{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hi")}}}}
	_, err := openairesponses.New(openairesponses.Options{BaseURL: srv.URL}).Send(context.Background(), req, nil)
	var ae *agent.APIError
	if !errors.As(err, &ae) || ae.Status != 401 || ae.Type != "invalid_request_error" || ae.RequestID != "req_fake" {
		t.Fatalf("no key: %#v", err)
	}
	srv.FailNext(rt.Fault{Status: 429, RetryAfter: "7"})
	_, err = openairesponses.New(openairesponses.Options{APIKey: rt.DefaultKey, BaseURL: srv.URL}).Send(context.Background(), req, nil)
	if !errors.As(err, &ae) || ae.Status != 429 || ae.RetryAfter != "7" || !ae.Retryable() {
		t.Fatalf("429: %#v", err)
	}
	// Native search asked of a model without it: the real 400 surfaces.
	req.Deferred = []agent.ToolDef{{Name: "x", Schema: json.RawMessage(`{"type":"object"}`)}}
	req.Search = agent.SearchNative
	p := openairesponses.New(openairesponses.Options{APIKey: rt.DefaultKey, BaseURL: srv.URL, NativeModels: map[string]bool{"gpt-4.1": true}})
	_, err = p.Send(context.Background(), &agent.Request{Model: "gpt-4.1", Deferred: req.Deferred, Search: agent.SearchNative, Messages: req.Messages}, nil)
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, "--search client") {
		t.Fatalf("unsupported tool_search: %#v", err)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// A conversation from elsewhere whose call ids are longer than the API's
// 64 characters (a 79-character id of Codex's MCP calls) continues here: the long id
// goes out mapped, the same on the call and its output, and the fake, which
// refuses longer call_ids, accepts the request.
func TestSessionLongForeignCallIDs(t *testing.T) {
	srv := rt.NewServer(t)
	srv.Script(rt.Turn{rt.Text("Still file.")})
	s, _ := newSession(t, srv, "gpt-5.4", agent.SearchNative, false)
	long := "codex_mcp__workspace_tools__read_file_exec-0f8c6b0e-8a7d-4b8e-9a51-2f5c3e1d7b90"
	s.Reset([]agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("Read a.txt")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: long, Name: "read_file", Input: json.RawMessage(`{"path":"a.txt"}`)})}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: long, Name: "read_file", Text: "file"})}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("It says file.")}},
	})
	run(t, s, "Again?")
	body := checkRequests(t, srv, 1)[0]
	var input []struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
	}
	_ = json.Unmarshal(body["input"], &input)
	var call, output string
	for _, it := range input {
		switch it.Type {
		case "function_call":
			call = it.CallID
		case "function_call_output":
			output = it.CallID
		}
	}
	if call == "" || len(call) > rt.MaxCallID || output != call {
		t.Errorf("call_id %q answered by %q", call, output)
	}
}
