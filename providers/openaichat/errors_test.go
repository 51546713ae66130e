package openaichat

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
)

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		name      string
		fault     chattest.Fault
		key       string // required by the fake
		retryable bool
		status    int
		typ, msg  string
		retry     string
	}{
		{name: "rate limit", fault: chattest.Fault{Status: 429, RetryAfter: "3"}, retryable: true, status: 429, typ: "rate_limit_exceeded", msg: "injected 429", retry: "3"},
		{name: "server error", fault: chattest.Fault{Status: 503}, retryable: true, status: 503, typ: "server_error"},
		{name: "ollama string error", fault: chattest.Fault{Status: 404, Body: `{"error":"model \"qwen9\" not found, try pulling it first"}`}, status: 404, msg: `model "qwen9" not found, try pulling it first`},
		{name: "gemini array error", fault: chattest.Fault{Status: 400, Body: `[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}]`}, status: 400, typ: "INVALID_ARGUMENT", msg: "API key not valid."},
		{name: "mistral top-level message", fault: chattest.Fault{Status: 422, Body: `{"object":"error","message":"Tool call id was toolu_1 but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_request_message_error"}`}, status: 422, typ: "invalid_request_message_error", msg: "Tool call id was"},
		{name: "mistral validation detail", fault: chattest.Fault{Status: 422, Body: `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options","include_usage"],"msg":"Extra inputs are not permitted","input":true}]},"type":"invalid_request_error","param":null,"code":null}`}, status: 422, typ: "invalid_request_error", msg: "body.stream_options.include_usage: Extra inputs are not permitted"},
		{name: "fastapi detail string", fault: chattest.Fault{Status: 400, Body: `{"detail":"Not Found"}`}, status: 400, msg: "Not Found"},
		{name: "not json", fault: chattest.Fault{Status: 502, Body: `<html>Bad Gateway</html>`}, retryable: true, status: 502, msg: "<html>Bad Gateway</html>"},
		{name: "missing key", key: "sk-right", status: 401, typ: "invalid_request_error", msg: "You didn't provide an API key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := chattest.NewServer(t)
			fake.APIKey = tc.key
			if tc.fault.Status != 0 {
				fake.Fail(tc.fault)
			}
			p := New(Options{Name: "ollama", BaseURL: fake.BaseURL()})
			resp, err := p.Send(t.Context(), &agent.Request{Model: "m", Messages: []agent.Message{user("x")}}, nil)
			var ae *agent.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v (%T), want *agent.APIError", err, err)
			}
			if resp != nil {
				t.Error("a response with an HTTP error")
			}
			if ae.Status != tc.status || ae.Retryable() != tc.retryable || ae.Provider != "ollama" || ae.RetryAfter != tc.retry {
				t.Errorf("got %+v retryable=%v", ae, ae.Retryable())
			}
			if ae.Type != tc.typ || !strings.Contains(ae.Message, tc.msg) {
				t.Errorf("type %q message %q, want %q / %q", ae.Type, ae.Message, tc.typ, tc.msg)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	p := New(Options{Name: "ollama", BaseURL: "http://127.0.0.1:1/v1"})
	_, err := p.Send(t.Context(), &agent.Request{Model: "m", Messages: []agent.Message{user("x")}}, nil)
	if err == nil || !strings.Contains(err.Error(), "ollama: send request") || !strings.Contains(err.Error(), "http://127.0.0.1:1/v1/chat/completions") {
		t.Errorf("error %v should name the server and URL", err)
	}
}

func TestPresets(t *testing.T) {
	env := map[string]string{"GROQ_API_KEY": "gsk", "OPENAI_BASE_URL": "http://proxy/v1", "OPENAI_API_KEY": "sk"}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		name, baseURL, wantURL, wantKey, err string
	}{
		{name: "ollama", wantURL: "http://127.0.0.1:11434/v1/chat/completions"},
		{name: "llama.cpp", wantURL: "http://127.0.0.1:8080/v1/chat/completions"},
		{name: "vllm", wantURL: "http://127.0.0.1:8000/v1/chat/completions"},
		{name: "LMStudio", wantURL: "http://127.0.0.1:1234/v1/chat/completions"},
		{name: "groq", wantURL: "https://api.groq.com/openai/v1/chat/completions", wantKey: "gsk"},
		{name: "openai", wantURL: "http://proxy/v1/chat/completions", wantKey: "sk"},
		{name: "openai-chat", baseURL: "http://other/v1/", wantURL: "http://other/v1/chat/completions", wantKey: "sk"},
		{name: "gemini", err: "set GEMINI_API_KEY"},
		{name: "deepseek", err: "set DEEPSEEK_API_KEY"},
		{name: "bogus", err: "unknown chat completions preset"},
	}
	for _, tc := range cases {
		p, err := FromPreset(tc.name, Options{BaseURL: tc.baseURL}, getenv)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if p.url != tc.wantURL || p.opts.APIKey != tc.wantKey || p.Name() != ProviderName {
			t.Errorf("%s: url %s key %q name %s", tc.name, p.url, p.opts.APIKey, p.Name())
		}
	}
	for name, ps := range Presets {
		if ps.Name != name || !strings.HasPrefix(ps.BaseURL, "http") || (ps.KeyRequired && ps.KeyEnv == "") {
			t.Errorf("preset %s is inconsistent: %+v", name, ps)
		}
	}
	mistral, _ := FromPreset("mistral", Options{}, func(string) string { return "k" })
	if !mistral.opts.ShortCallIDs || !mistral.opts.DropReasoning || !mistral.opts.NoStreamOptions || mistral.opts.Name != "mistral" {
		t.Errorf("mistral preset options not applied: %+v", mistral.opts)
	}
	r, _ := mistral.render(&agent.Request{Model: "m", MaxTokens: 10, Messages: []agent.Message{user("x")}})
	if strings.Contains(string(r.body), "stream_options") || !strings.Contains(string(r.body), `"max_tokens":10`) {
		t.Errorf("mistral body %s", r.body)
	}
	openai, _ := FromPreset("openai", Options{}, func(string) string { return "k" })
	r, _ = openai.render(&agent.Request{Model: "m", MaxTokens: 10, Messages: []agent.Message{user("x")}})
	if !strings.Contains(string(r.body), `"max_completion_tokens":10`) {
		t.Errorf("openai body %s", r.body)
	}
}

// OpenAI rejects reasoning_content in messages; DeepSeek requires it back.
func TestReasoningReplay(t *testing.T) {
	hist := []agent.Message{
		user("q"),
		{Role: agent.RoleAssistant, Parts: []agent.Part{
			agent.ToolCallPart(agent.ToolCall{ID: "c1", Name: "read_file", Input: []byte(`{}`)}),
			agent.RawPart(ProviderName, APIName, []byte(`{"role":"assistant","content":null,"reasoning_content":"hmm","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{}"}}]}`)),
		}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "c1", Text: "x"})}},
	}
	req := &agent.Request{Model: "m", Tools: []agent.ToolDef{readFile}, Messages: hist}
	keep, err := New(Options{}).render(req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(keep.body), `"reasoning_content":"hmm"`) || chattest.Check(keep.body, true) != nil {
		t.Errorf("reasoning not replayed verbatim: %s", keep.body)
	}
	drop, _ := New(Options{DropReasoning: true}).render(req)
	if strings.Contains(string(drop.body), "reasoning_content") {
		t.Errorf("reasoning replayed with DropReasoning: %s", drop.body)
	}
	if err := chattest.Check(drop.body, false); err != nil {
		t.Errorf("OpenAI-strict check: %v", err)
	}
	if err := chattest.Check(keep.body, false); err == nil {
		t.Error("the strict fake should reject reasoning_content as OpenAI does")
	}
}

// With ShortCallIDs, ids inside a replayed raw message another server made
// are mapped like the ids of their results, so the pairs still match.
func TestShortCallIDsInRaw(t *testing.T) {
	hist := []agent.Message{
		user("q"),
		{Role: agent.RoleAssistant, Parts: []agent.Part{
			agent.ToolCallPart(agent.ToolCall{ID: "call_abcdef123", Name: "read_file", Input: []byte(`{}`)}),
			agent.RawPart(ProviderName, APIName, []byte(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_abcdef123","type":"function","function":{"name":"read_file","arguments":"{}"}}]}`)),
		}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "call_abcdef123", Text: ""})}},
	}
	p := New(Options{ShortCallIDs: true})
	r, err := p.render(&agent.Request{Model: "m", Tools: []agent.ToolDef{readFile}, Messages: hist})
	if err != nil {
		t.Fatal(err)
	}
	id := p.callID("call_abcdef123")
	if strings.Contains(string(r.body), "call_abcdef123") || strings.Count(string(r.body), `"`+id+`"`) != 2 {
		t.Errorf("ids not mapped consistently to %s: %s", id, r.body)
	}
	if !strings.Contains(string(r.body), "(no output)") {
		t.Errorf("empty tool result sent empty: %s", r.body)
	}
	if err := chattest.Check(r.body, false); err != nil {
		t.Error(err)
	}
}

// Over 128 tools the API answers 400 array_above_max_length (the fake's
// rule); the error says how to stay under it.
func TestTooManyToolsSaysDefer(t *testing.T) {
	fake := chattest.NewServer(t)
	fake.Script(chattest.Text("ok"))
	p := New(Options{Name: "openai", BaseURL: fake.BaseURL()})
	req := &agent.Request{Model: "gpt-4.1", Messages: []agent.Message{user("x")}, Search: agent.SearchOff}
	for i := range chattest.MaxTools + 1 {
		req.Tools = append(req.Tools, agent.ToolDef{Name: "t" + strconv.Itoa(i), Schema: []byte(`{"type":"object","properties":{"a":{"type":"string"}}}`)})
	}
	_, err := p.Send(t.Context(), req, nil)
	var ae *agent.APIError
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, "maximum length 128, but got an array with length 129") || !strings.Contains(ae.Message, "--defer") {
		t.Fatalf("error %v, want the 400 with the --defer hint", err)
	}
	req.Tools = req.Tools[:chattest.MaxTools]
	if _, err := p.Send(t.Context(), req, nil); err != nil {
		t.Fatalf("128 tools: %v", err)
	}
}
