package openaichat

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	"github.com/agent-dev/agent/tools"
)

func noRejection(t *testing.T, fake *chattest.Server) []chattest.Request {
	t.Helper()
	reqs := fake.Requests()
	for i, r := range reqs {
		if r.Status != 200 {
			t.Fatalf("request %d rejected: %d %s", i, r.Status, r.Error)
		}
	}
	return reqs
}

func searchAndCall(city string) []chattest.Turn {
	return []chattest.Turn{
		chattest.Calls(chattest.SearchCall("call_s1", "weather", 0)),
		chattest.Calls(chattest.WrappedCall("call_w1", "weather_lookup", map[string]any{"city": city})),
		chattest.Text("It is sunny."),
	}
}

// Gemini 3 on the OpenAI-compatible endpoint: the thought signature in
// each call's extra_content goes back unchanged, to the same server only.
func TestGemini3ThoughtSignaturesReplayed(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		fake := chattest.NewServer(t)
		fake.Script(searchAndCall("Rome")...)
		s := testSession(t, fake)
		_ = s.Override(func(turn *agent.TurnContext) { turn.Provider = New(Options{Name: "gemini", BaseURL: fake.BaseURL()}) })
		_ = s.Override(func(turn *agent.TurnContext) { turn.Model, turn.NoStream = "gemini-3-pro-preview", noStream })
		run(t, s, "Weather in Rome?")
		reqs := noRejection(t, fake)
		if len(reqs) != 3 {
			t.Fatalf("%d requests", len(reqs))
		}
		for _, r := range reqs[1:] {
			if !bytes.Contains(r.Body, []byte(`"extra_content":{"google":{"thought_signature":"sig_call_s1"}}`)) {
				t.Fatalf("signature not replayed: %s", r.Body)
			}
		}
		// The same history on another server: the opaque field stays home.
		other := chattest.NewServer(t)
		other.Script(chattest.Text("ok"))
		_ = s.Override(func(turn *agent.TurnContext) {
			turn.Provider, turn.Model = New(Options{Name: "openai", BaseURL: other.BaseURL()}), "gpt-4.1"
		})
		run(t, s, "Thanks")
		if r := noRejection(t, other)[0]; bytes.Contains(r.Body, []byte("extra_content")) {
			t.Errorf("extra_content sent to another server: %s", r.Body)
		}
	}
}

func TestFakeRejectsMissingThoughtSignature(t *testing.T) {
	body := []byte(`{"model":"gemini-3-pro-preview","messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"ok"}]}`)
	err := chattest.Check(body, false)
	if err == nil || !strings.Contains(err.Error(), "Function call is missing a thought_signature") {
		t.Errorf("got %v", err)
	}
	body = bytes.Replace(body, []byte("gemini-3-pro-preview"), []byte("deepseek-reasoner"), 1)
	if err := chattest.Check(body, true); err == nil || !strings.Contains(err.Error(), "Missing `reasoning_content` field in the assistant message at message index 1") {
		t.Errorf("deepseek: got %v", err)
	}
	body = bytes.Replace(body, []byte(`"type":"function","function"`), []byte(`"type":"function","extra_content":{},"function"`), 1)
	body = bytes.Replace(body, []byte("deepseek-reasoner"), []byte("gpt-4.1"), 1)
	if err := chattest.Check(body, false); err == nil || !strings.Contains(err.Error(), "('extra_content' was unexpected)") {
		t.Errorf("openai: got %v", err)
	}
}

// DeepSeek thinking: reasoning_content on every assistant tool-call turn,
// even empty, and on turns another provider made.
func TestDeepSeekReasoningOnEveryToolTurn(t *testing.T) {
	fake := chattest.NewServer(t)
	fake.Script(
		chattest.Calls(chattest.SearchCall("call_s1", "weather", 0)), // no reasoning at all
		chattest.Turn{Reasoning: "Found it.", Calls: []chattest.Call{chattest.WrappedCall("call_w1", "weather_lookup", map[string]any{"city": "Oslo"})}},
		chattest.Text("Cold."),
	)
	s := testSession(t, fake)
	_ = s.Override(func(turn *agent.TurnContext) { turn.Provider = New(Options{Name: "deepseek", BaseURL: fake.BaseURL()}) })
	_ = s.Override(func(turn *agent.TurnContext) { turn.Model = "deepseek-reasoner" })
	// A tool-call turn made by another provider, earlier in the conversation.
	s.Reset([]agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("Read a.txt")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: "toolu_01", Name: "read_file", Input: json.RawMessage(`{"path":"a.txt"}`)}),
			agent.RawPart("anthropic", "messages", json.RawMessage(`[{"type":"tool_use","id":"toolu_01","name":"read_file","input":{"path":"a.txt"}}]`))}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "toolu_01", Text: "hello"})}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("It says hello.")}},
	})
	evs := run(t, s, "Weather in Oslo?")
	reqs := noRejection(t, fake)
	last := string(reqs[len(reqs)-1].Body)
	if strings.Count(last, `"reasoning_content":`) != 3 || !strings.Contains(last, `"reasoning_content":""`) {
		t.Errorf("reasoning_content not on every tool-call turn: %s", last)
	}
	reasoning := false
	for _, e := range evs {
		reasoning = reasoning || e.Type == agent.EventReasoningDelta
	}
	if !reasoning {
		t.Error("reasoning_content not streamed as reasoning events")
	}
}

// --effort and the per-model output limit on the wire.
func TestEffortAndMaxTokensOnTheWire(t *testing.T) {
	cases := []struct{ name, model, effort, want, notWant string }{
		{"gemini", "gemini-3-pro-preview", "high", `"max_tokens":32768,"reasoning_effort":"high"`, ""},
		{"gemini", "gemini-2.5-flash", "none", `"reasoning_effort":"none"`, ""},
		{"openai", "o3", "max", `"max_completion_tokens":50000,"reasoning_effort":"high"`, ""},
		{"deepseek", "deepseek-reasoner", "high", `"max_tokens":32768`, "reasoning_effort"},
		{"openai", "gpt-4.1", "high", `"max_completion_tokens":32768`, "reasoning_effort"},
	}
	for _, c := range cases {
		fake := chattest.NewServer(t)
		fake.Script(chattest.Text("ok"))
		o := Options{Name: c.name, BaseURL: fake.BaseURL()}
		if c.name == "openai" {
			o.MaxTokensField = "max_completion_tokens"
		}
		s := testSession(t, fake)
		_ = s.Override(func(turn *agent.TurnContext) {
			turn.Provider, turn.Model, turn.Effort, turn.Search = New(o), c.model, c.effort, agent.SearchOff
		})
		evs := run(t, s, "hi")
		r := noRejection(t, fake)[0]
		if !bytes.Contains(r.Body, []byte(c.want)) || c.notWant != "" && bytes.Contains(r.Body, []byte(c.notWant)) {
			t.Errorf("%s --effort %s: %s", c.model, c.effort, r.Body)
		}
		if c.notWant == "reasoning_effort" {
			noticed := false
			for _, e := range evs {
				noticed = noticed || e.Type == agent.EventWarning && strings.Contains(e.Text, "ignored")
			}
			if !noticed {
				t.Errorf("%s: no notice that --effort is ignored", c.model)
			}
		}
	}
}

// Tools go to Gemini in its schema subset; the fake rejects the keywords
// Gemini does, with its message.
func TestGeminiSchemaDialect(t *testing.T) {
	fake := chattest.NewServer(t)
	// launchOptions is declared as JSON text; the tool gets the object.
	fake.Script(chattest.Calls(chattest.DirectCall("call_l1", "launch", map[string]any{"url": "https://x", "launchOptions": `{"headless":true}`})), chattest.Text("ok"))
	s := testSession(t, fake)
	_ = s.Override(func(turn *agent.TurnContext) {
		turn.Provider, turn.Model, turn.Search = New(Options{Name: "gemini", BaseURL: fake.BaseURL()}), "gemini-2.5-flash", agent.SearchOff
	})
	if err := s.Tools().Add(nil, toolOf(agent.ToolDef{Name: "pick", Description: "Pick one",
		Schema: json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","additionalProperties":false,"properties":{"mode":{"const":"fast"},"n":{"type":"integer","enum":[1,2]}}}`)}, nil)); err != nil {
		t.Fatal(err)
	}
	// What Gemini answers with "should be non-empty for OBJECT type": a
	// function without parameters, a free-form object parameter.
	if err := s.Tools().Add(nil, toolOf(agent.ToolDef{Name: "now", Description: "The time", Schema: json.RawMessage(`{"type":"object","properties":{}}`)}, nil)); err != nil {
		t.Fatal(err)
	}
	var launched json.RawMessage
	if err := s.Tools().Add(nil, toolOf(agent.ToolDef{Name: "launch", Description: "Launch",
		Schema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"},"launchOptions":{"type":"object","description":"Puppeteer options"}}}`)},
		func(_ context.Context, args json.RawMessage) (tools.Result, error) {
			launched = args
			return tools.Result{Text: "launched"}, nil
		})); err != nil {
		t.Fatal(err)
	}
	run(t, s, "hi")
	r := noRejection(t, fake)[0]
	if !bytes.Contains(r.Body, []byte(`"mode":{"enum":["fast"],"type":"string"}`)) || bytes.Contains(r.Body, []byte("additionalProperties")) {
		t.Errorf("schema not in Gemini's subset: %s", r.Body)
	}
	if !bytes.Contains(r.Body, []byte(`{"name":"now","description":"The time"}`)) || !bytes.Contains(r.Body, []byte(`"launchOptions":{"description":"Puppeteer options (a JSON object, as text)","type":"string"}`)) {
		t.Errorf("objects without properties sent: %s", r.Body)
	}
	if string(launched) != `{"launchOptions":{"headless":true},"url":"https://x"}` {
		t.Errorf("the tool got %s, want launchOptions as an object", launched)
	}
	body := []byte(`{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","additionalProperties":false}}}]}`)
	if err := chattest.Check(body, false); err == nil || !strings.Contains(err.Error(), `Unknown name "additionalProperties"`) {
		t.Errorf("fake: %v", err)
	}
}

// finish_reason "length" with a call: the call is cut, asked again once
// with the model's largest output.
func TestCutCallRetried(t *testing.T) {
	fake := chattest.NewServer(t)
	call := chattest.DirectCall("call_r1", "read_file", map[string]any{"path": "a-long-file-name.txt"})
	fake.Script(chattest.Turn{Calls: []chattest.Call{call}, Finish: "length"}, chattest.Calls(call), chattest.Text("Done."))
	s := testSession(t, fake)
	_ = s.Override(func(turn *agent.TurnContext) { turn.Model, turn.Search = "qwen3-coder", agent.SearchOff })
	evs := run(t, s, "Read it.")
	reqs := noRejection(t, fake)
	if len(reqs) != 3 || !bytes.Contains(reqs[0].Body, []byte(`"max_tokens":32768`)) || !bytes.Contains(reqs[1].Body, []byte(`"max_tokens":65536`)) {
		t.Fatalf("%d requests: %s", len(reqs), reqs[len(reqs)-1].Body)
	}
	ran := 0
	for _, e := range evs {
		if e.Type == agent.EventToolFinished && !e.Tool.IsError {
			ran++
		}
	}
	if ran != 1 {
		t.Errorf("the call ran %d times", ran)
	}
}

// A tool loop another provider began, continued on Gemini 3: the calls
// Gemini did not make get Google's skip value, not a 400.
func TestGemini3ForeignCallsSigned(t *testing.T) {
	fake := chattest.NewServer(t)
	fake.Script(chattest.Text("It says hello."))
	s := testSession(t, fake)
	_ = s.Override(func(turn *agent.TurnContext) {
		turn.Provider, turn.Model = New(Options{Name: "gemini", BaseURL: fake.BaseURL()}), "gemini-3-pro-preview"
	})
	s.Reset([]agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("Read a.txt")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: "toolu_01", Name: "read_file", Input: json.RawMessage(`{"path":"a.txt"}`)})}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "toolu_01", Text: "hello"})}},
	})
	run(t, s, "")
	if r := noRejection(t, fake)[0]; !bytes.Contains(r.Body, []byte(`"thought_signature":"skip_thought_signature_validator"`)) {
		t.Errorf("no skip signature: %s", r.Body)
	}
}
