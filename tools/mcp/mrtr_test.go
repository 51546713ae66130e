package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/config"
)

// statelessServer is a hand-written server of protocol 2026-07-28 only
// over streamable HTTP, as the conformance suite's are: it refuses the
// 2025-11-25 initialize (-32022), answers server/discover, lists tools and
// answers tools/call and prompts/get from a script, recording every call
// with its id, the input it carried and its headers.
type statelessServer struct {
	tools   []map[string]any
	prompts []map[string]any
	// answer is the result of the request rec, the nth (from 0) of its
	// tool or prompt.
	answer func(rec served, n int) any

	mu    sync.Mutex
	calls []served
}

// served is one tools/call or prompts/get as the server saw it.
type served struct {
	ID, Method, Name string
	Args             map[string]json.RawMessage
	Responses        map[string]json.RawMessage
	HasResponses     bool
	State            json.RawMessage // nil when the request had none
	Header           http.Header
}

func (s *statelessServer) start(t *testing.T) config.MCPServer {
	t.Helper()
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return config.MCPServer{Name: "st", Type: config.MCPHTTP, URL: ts.URL + "/mcp"}
}

func (s *statelessServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "no GET stream in 2026-07-28", http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name           string                     `json:"name"`
			Arguments      map[string]json.RawMessage `json:"arguments"`
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
			RequestState   json.RawMessage            `json:"requestState"`
			Meta           map[string]any             `json:"_meta"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if len(msg.ID) == 0 {
		w.WriteHeader(http.StatusAccepted) // a notification
		return
	}
	reply := func(result any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
	}
	v, _ := msg.Params.Meta[mcpgo.MetaKeyProtocolVersion].(string)
	switch {
	case msg.Method == "server/discover":
		reply(map[string]any{"supportedVersions": []string{mcpgo.ProtocolVersion20260728},
			"capabilities": map[string]any{"tools": map[string]any{}, "prompts": map[string]any{}},
			"serverInfo":   map[string]any{"name": "stateless", "version": "1.0.0"}})
	case v == "":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}`))
	case msg.Method == "tools/list":
		reply(map[string]any{"tools": s.tools})
	case msg.Method == "prompts/list":
		reply(map[string]any{"prompts": s.prompts})
	case msg.Method == "resources/list", msg.Method == "resources/templates/list":
		reply(map[string]any{"resources": []any{}, "resourceTemplates": []any{}})
	case msg.Method == "tools/call", msg.Method == "prompts/get":
		has := msg.Params.InputResponses != nil
		rec := served{ID: string(msg.ID), Method: msg.Method, Name: msg.Params.Name, Args: msg.Params.Arguments,
			Responses: msg.Params.InputResponses, HasResponses: has, State: msg.Params.RequestState, Header: r.Header.Clone()}
		s.mu.Lock()
		n := 0
		for _, c := range s.calls {
			if c.Method == rec.Method && c.Name == rec.Name {
				n++
			}
		}
		s.calls = append(s.calls, rec)
		s.mu.Unlock()
		reply(s.answer(rec, n))
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"error":{"code":-32601,"message":"method not found"}}`))
	}
}

func (s *statelessServer) served(name string) []served {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []served
	for _, c := range s.calls {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

func plainTool(name string) map[string]any {
	return map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}}
}

func textResult(text string) map[string]any {
	return map[string]any{"resultType": "complete", "content": []any{map[string]any{"type": "text", "text": text}}}
}

// askOnce asks with reqs (and state, when not nil) in the first round and
// completes with "done" in the next.
func askOnce(reqs map[string]any, state any) func(served, int) any {
	return func(_ served, n int) any {
		if n > 0 {
			return textResult("done")
		}
		r := map[string]any{"resultType": "input_required", "inputRequests": reqs}
		if reqs == nil {
			delete(r, "inputRequests")
		}
		if state != nil {
			r["requestState"] = state
		}
		return r
	}
}

var confirmForm = map[string]any{"method": "elicitation/create", "params": map[string]any{
	"message":         "Deploy to prod?",
	"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"confirmed": map[string]any{"type": "boolean"}}, "required": []string{"confirmed"}},
}}

// TestInputRequiredRoundTrips: a tools/call of a 2026-07-28 server answered
// input_required is answered through the agent's handlers (the Host's
// dialogs, sampling, roots) and sent again with a new id, the answers and
// the server's requestState exactly; before, it failed ("the agent does not
// answer yet").
func TestInputRequiredRoundTrips(t *testing.T) {
	t.Parallel()
	workdir := t.TempDir()
	odd := `{"nonce":"é<&>\u0001","n":1}` // a state a client must not touch
	for _, tc := range []struct {
		name   string
		reqs   map[string]any
		state  any
		host   *fakeHost
		wantIn map[string]string // key -> a part of its answer as the server got it
		// wantState: the retry's requestState as the server read it ("" none).
		wantState string
		wantAsked int // elicitations put to the user
	}{
		{name: "elicitation accepted", reqs: map[string]any{"confirm": confirmForm}, state: "s1",
			host: &fakeHost{answer: func(Elicitation) ElicitAnswer {
				return ElicitAnswer{Action: ActionAccept, Content: map[string]any{"confirmed": true}}
			}},
			wantIn: map[string]string{"confirm": `{"action":"accept","content":{"confirmed":true}}`}, wantState: "s1", wantAsked: 1},
		{name: "elicitation declined", reqs: map[string]any{"confirm": confirmForm}, state: "s2",
			host:   &fakeHost{answer: func(Elicitation) ElicitAnswer { return ElicitAnswer{Action: ActionDecline} }},
			wantIn: map[string]string{"confirm": `{"action":"decline"}`}, wantState: "s2", wantAsked: 1},
		{name: "elicitation cancelled", reqs: map[string]any{"confirm": confirmForm},
			host:   &fakeHost{answer: func(Elicitation) ElicitAnswer { return ElicitAnswer{Action: ActionCancel} }},
			wantIn: map[string]string{"confirm": `{"action":"cancel"}`}, wantAsked: 1},
		{name: "url elicitation", reqs: map[string]any{"link": map[string]any{"method": "elicitation/create",
			"params": map[string]any{"mode": "url", "message": "Link your account", "url": "https://example.com/link"}}},
			host: &fakeHost{answer: func(e Elicitation) ElicitAnswer {
				if e.Mode != "url" || e.URL != "https://example.com/link" || !e.Retry {
					return ElicitAnswer{Action: ActionDecline}
				}
				return ElicitAnswer{Action: ActionAccept}
			}},
			wantIn: map[string]string{"link": `{"action":"accept"}`}, wantAsked: 1},
		{name: "sampling", reqs: map[string]any{"s": map[string]any{"method": "sampling/createMessage", "params": map[string]any{
			"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}},
			"maxTokens": 10}}},
			host:   &fakeHost{sampleOK: true},
			wantIn: map[string]string{"s": `"text":"sampled: hi"`}},
		{name: "roots", reqs: map[string]any{"r": map[string]any{"method": "roots/list"}},
			host:   &fakeHost{},
			wantIn: map[string]string{"r": `"uri":"file://`}},
		{name: "two requests in one round", reqs: map[string]any{"confirm": confirmForm, "r": map[string]any{"method": "roots/list"}},
			host:   &fakeHost{answer: func(Elicitation) ElicitAnswer { return ElicitAnswer{Action: ActionDecline} }},
			wantIn: map[string]string{"confirm": `{"action":"decline"}`, "r": `"roots":[`}, wantAsked: 1},
		{name: "state echoed exactly", reqs: map[string]any{"r": map[string]any{"method": "roots/list"}}, state: odd,
			host: &fakeHost{}, wantIn: map[string]string{"r": `"roots":[`}, wantState: odd},
		{name: "state only: asked again unchanged", state: "busy", host: &fakeHost{}, wantState: "busy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &statelessServer{tools: []map[string]any{plainTool("deploy")}, answer: askOnce(tc.reqs, tc.state)}
			_, set := startRegistered(t, Options{Host: tc.host, Workdir: workdir}, s.start(t))
			r := call(t, set, ToolName("st", "deploy"), `{}`)
			if r.IsError || r.Text != "done" {
				t.Fatalf("result %+v, want done", r)
			}
			calls := s.served("deploy")
			if len(calls) != 2 {
				t.Fatalf("%d calls, want 2: %+v", len(calls), calls)
			}
			first, retry := calls[0], calls[1]
			if first.ID == retry.ID {
				t.Errorf("the retry has the first request's id %s", first.ID)
			}
			if first.HasResponses || first.State != nil {
				t.Errorf("the first request carries input: %+v", first)
			}
			if retry.Header.Get(mcpgo.HeaderMethod) != "tools/call" || retry.Header.Get(mcpgo.HeaderName) != "deploy" {
				t.Errorf("retry headers %v: want the 2026-07-28 standard headers", retry.Header)
			}
			if len(retry.Responses) != len(tc.wantIn) || retry.HasResponses != (len(tc.wantIn) > 0) {
				t.Errorf("inputResponses %s, want keys of %v", retry.Responses, tc.wantIn)
			}
			for k, part := range tc.wantIn {
				if got := string(retry.Responses[k]); !strings.Contains(got, part) {
					t.Errorf("inputResponses[%s] = %s, want it to hold %s", k, got, part)
				}
			}
			var state string
			if retry.State != nil {
				if err := json.Unmarshal(retry.State, &state); err != nil {
					t.Fatalf("requestState %s: %v", retry.State, err)
				}
			}
			if state != tc.wantState || (tc.state == nil) != (retry.State == nil) {
				t.Errorf("retry's requestState %s, want %q (present %v)", retry.State, tc.wantState, tc.state != nil)
			}
			tc.host.mu.Lock()
			defer tc.host.mu.Unlock()
			if len(tc.host.elicits) != tc.wantAsked {
				t.Errorf("the user was asked %d times, want %d", len(tc.host.elicits), tc.wantAsked)
			}
		})
	}
}

// TestInputRequiredFailures: what ends a round-trip call, with one line
// for the model, after how many requests.
func TestInputRequiredFailures(t *testing.T) {
	t.Parallel()
	always := func(served, int) any {
		return map[string]any{"resultType": "input_required", "inputRequests": map[string]any{"r": map[string]any{"method": "roots/list"}}, "requestState": "again"}
	}
	for _, tc := range []struct {
		name   string
		answer func(served, int) any
		host   *fakeHost
		calls  int
		want   string // in the error result; "" for a plain result
	}{
		{name: "asks forever", answer: always, host: &fakeHost{}, calls: maxInputRounds, want: "still asked for input after 10 rounds"},
		{name: "no resultType is complete", answer: func(served, int) any {
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": "plain"}}}
		}, host: &fakeHost{}, calls: 1},
		{name: "sampling declined", answer: askOnce(map[string]any{"s": map[string]any{"method": "sampling/createMessage", "params": map[string]any{
			"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}, "maxTokens": 10}}}, nil),
			host: &fakeHost{}, calls: 1, want: "declined to let the server sample"},
		{name: "unknown method", answer: askOnce(map[string]any{"x": map[string]any{"method": "files/read"}}, "s"),
			host: &fakeHost{}, calls: 1, want: `unsupported input request method "files/read"`},
		{name: "form without schema", answer: askOnce(map[string]any{"f": map[string]any{"method": "elicitation/create", "params": map[string]any{"message": "?"}}}, nil),
			host: &fakeHost{}, calls: 1, want: "without requestedSchema"},
		{name: "url not http", answer: askOnce(map[string]any{"u": map[string]any{"method": "elicitation/create", "params": map[string]any{"mode": "url", "message": "?", "url": "javascript:alert(1)"}}}, nil),
			host: &fakeHost{}, calls: 1, want: "is not an http(s) URL"},
		{name: "neither requests nor state", answer: func(served, int) any {
			return map[string]any{"resultType": "input_required"}
		}, host: &fakeHost{}, calls: 1, want: "neither inputRequests nor requestState"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &statelessServer{tools: []map[string]any{plainTool("deploy")}, answer: tc.answer}
			_, set := startRegistered(t, Options{Host: tc.host}, s.start(t))
			r := call(t, set, ToolName("st", "deploy"), `{}`)
			if got := len(s.served("deploy")); got != tc.calls {
				t.Errorf("%d requests, want %d", got, tc.calls)
			}
			if tc.want == "" {
				if r.IsError {
					t.Errorf("result %+v, want a plain one", r)
				}
				return
			}
			if !r.IsError || !strings.Contains(r.Text, tc.want) || strings.Contains(r.Text, "\n") {
				t.Errorf("result %+v, want one error line with %q", r, tc.want)
			}
		})
	}
}

// TestInputRequiredCancelled: the turn cancelled while the user is asked
// ends the call at once, sending nothing more.
func TestInputRequiredCancelled(t *testing.T) {
	t.Parallel()
	asked := make(chan struct{})
	h := &ctxHost{elicit: func(ctx context.Context, _ Elicitation) ElicitAnswer {
		close(asked)
		<-ctx.Done()
		return ElicitAnswer{Action: ActionCancel}
	}}
	s := &statelessServer{tools: []map[string]any{plainTool("deploy")}, answer: askOnce(map[string]any{"confirm": confirmForm}, "s")}
	_, set := startRegistered(t, Options{Host: h}, s.start(t))
	tool, _ := set.Lookup(ToolName("st", "deploy"))
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-asked
		cancel()
	}()
	_, err := tool.Exec(ctx, json.RawMessage(`{}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the turn's cancellation", err)
	}
	if n := len(s.served("deploy")); n != 1 {
		t.Errorf("%d requests, want the first only", n)
	}
}

// TestInputRequiredIsolated: a call made while another waits for the
// user's input carries none of it.
func TestInputRequiredIsolated(t *testing.T) {
	t.Parallel()
	asked, otherDone := make(chan struct{}), make(chan struct{})
	h := &ctxHost{elicit: func(ctx context.Context, _ Elicitation) ElicitAnswer {
		close(asked)
		select {
		case <-otherDone:
		case <-ctx.Done():
		}
		return ElicitAnswer{Action: ActionAccept, Content: map[string]any{"confirmed": true}}
	}}
	ask := askOnce(map[string]any{"confirm": confirmForm}, "mine")
	s := &statelessServer{tools: []map[string]any{plainTool("deploy"), plainTool("status")}, answer: func(rec served, n int) any {
		if rec.Name == "status" {
			return textResult("fine")
		}
		return ask(rec, n)
	}}
	_, set := startRegistered(t, Options{Host: h}, s.start(t))
	res := make(chan string, 1)
	go func() {
		tool, _ := set.Lookup(ToolName("st", "deploy"))
		r, err := tool.Exec(t.Context(), json.RawMessage(`{}`))
		if err != nil {
			res <- err.Error()
			return
		}
		res <- r.Text
	}()
	// The other call goes while deploy waits for the user.
	<-asked
	if r := call(t, set, ToolName("st", "status"), `{}`); r.Text != "fine" {
		t.Errorf("status: %+v", r)
	}
	close(otherDone)
	if got := <-res; got != "done" {
		t.Fatalf("deploy: %s", got)
	}
	for _, c := range s.served("status") {
		if c.HasResponses || c.State != nil {
			t.Errorf("status call carries another call's input: %+v", c)
		}
	}
	if d := s.served("deploy"); len(d) != 2 || string(d[1].State) != `"mine"` {
		t.Errorf("deploy's requests %+v: want its retry with its own state", d)
	}
}

// TestPromptInputRequired: prompts/get goes through mcp-go's client, whose
// own round trips ask the agent's handlers: the user's answer reaches the
// server and the prompt comes back.
func TestPromptInputRequired(t *testing.T) {
	t.Parallel()
	host := &fakeHost{answer: func(Elicitation) ElicitAnswer {
		return ElicitAnswer{Action: ActionAccept, Content: map[string]any{"confirmed": true}}
	}}
	s := &statelessServer{tools: []map[string]any{plainTool("deploy")}, prompts: []map[string]any{{"name": "greet"}},
		answer: func(rec served, n int) any {
			if n == 0 {
				return map[string]any{"resultType": "input_required", "inputRequests": map[string]any{"confirm": confirmForm}, "requestState": "p1"}
			}
			return map[string]any{"resultType": "complete", "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hello"}}}}
		}}
	m, _ := startRegistered(t, Options{Host: host}, s.start(t))
	msgs, err := m.GetPrompt(t.Context(), "st", "greet", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Text != "hello" {
		t.Errorf("prompt %+v", msgs)
	}
	calls := s.served("greet")
	if len(calls) != 2 || string(calls[1].State) != `"p1"` || !strings.Contains(string(calls[1].Responses["confirm"]), `"action":"accept"`) {
		t.Errorf("prompts/get requests %+v: want a retry with the answer and the state", calls)
	}
}

// TestInputRequiredAnswerOutlivesTimeout: the user's time to answer is not
// the server's: each round has the tool timeout, the dialog between them
// none (a slow answer timed out the call, and would have restarted a stdio
// server as hung).
func TestInputRequiredAnswerOutlivesTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 100 * time.Millisecond
	h := &ctxHost{elicit: func(ctx context.Context, _ Elicitation) ElicitAnswer {
		slow := time.NewTimer(3 * timeout) // the user thinks it over
		defer slow.Stop()
		select {
		case <-ctx.Done():
			return ElicitAnswer{Action: ActionCancel}
		case <-slow.C:
			return ElicitAnswer{Action: ActionAccept, Content: map[string]any{"confirmed": true}}
		}
	}}
	s := &statelessServer{tools: []map[string]any{plainTool("deploy")}, answer: askOnce(map[string]any{"confirm": confirmForm}, "s")}
	cfg := s.start(t)
	cfg.ToolTimeout = timeout
	_, set := startRegistered(t, Options{Host: h}, cfg)
	if r := call(t, set, ToolName("st", "deploy"), `{}`); r.IsError || r.Text != "done" {
		t.Fatalf("result %+v, want done", r)
	}
	if c := s.served("deploy"); len(c) != 2 || !strings.Contains(string(c[1].Responses["confirm"]), `"accept"`) {
		t.Errorf("requests %+v: want the retry with the answer", c)
	}
}
