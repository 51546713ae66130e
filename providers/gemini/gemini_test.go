package gemini_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/gemini"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	"github.com/agent-dev/agent/tools"
)

func toolSet(t *testing.T) *tools.Set {
	t.Helper()
	s := tools.NewSet()
	exec := func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		return tools.Result{Text: "sunny " + string(args)}, nil
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Add(nil, tools.Tool{Name: "3d_render", Description: "Render a scene (a name Gemini does not accept as is)",
		Schema: json.RawMessage(`{"type":"object","properties":{"scene":{"type":"string"}},"required":["scene"],"additionalProperties":false}`), Exec: exec}))
	must(s.Add([]tools.Option{tools.Defer(true)},
		tools.Tool{Name: "get_weather", Description: "Get the current weather forecast for a city",
			Schema: json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"city":{"type":"string"},"units":{"$ref":"#/$defs/units"}},"required":["city"],"additionalProperties":false,"$defs":{"units":{"enum":["c","f"]}}}`), Exec: exec},
		tools.Tool{Name: "stock_price", Description: "Look up the price of a stock ticker",
			Schema: json.RawMessage(`{"type":"object","properties":{"ticker":{"type":["string","null"]},"exchange":{"const":"NYSE"},"n":{"type":"integer","enum":[1,2]}}}`), Exec: exec},
	))
	return s
}

type searcher struct{}

func (searcher) Search(ctx context.Context, c agent.SearchCall) ([]string, error) {
	return []string{"get_weather"}, nil
}

func newSession(t *testing.T, f *geminitest.Server, model string, noStream bool) *agent.Session {
	p := gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: f.URL, Effort: "high"})
	return agent.New(agent.Config{Provider: p, Model: model, Tools: toolSet(t), Searcher: searcher{}, NoStream: noStream, Backoff: time.Millisecond})
}

func tools_(t *testing.T, body []byte) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return string(m["tools"])
}

// Client search through tool_search and tool_call on Gemini 3 and 2.5,
// streamed and not: every request accepted (schemas in the dialect,
// responses paired, signatures replayed verbatim), one tools array.
func TestClientSearchFindsAndCalls(t *testing.T) {
	for _, model := range []string{"gemini-3-pro-preview", "gemini-2.5-flash"} {
		for _, noStream := range []bool{false, true} {
			f := geminitest.NewServer(t)
			f.Script = geminitest.NewScript(
				geminitest.Turn{Text: "Let me look.", Search: "weather", Call: "$found", Input: map[string]any{"city": "Oslo"}},
				geminitest.Turn{Text: "Sunny in Oslo."})
			s := newSession(t, f, model, noStream)
			var found []string
			var calls []string
			reasoning := false
			err := s.Run(t.Context(), "Weather in Oslo?", func(e agent.Event) {
				reasoning = reasoning || e.Type == agent.EventReasoningDelta && e.Text != ""
				if e.Type == agent.EventSearchFinished {
					found = append(found, e.Search.Tools...)
				}
				if e.Type == agent.EventToolFinished {
					calls = append(calls, e.Tool.Name)
				}
			})
			if err != nil {
				t.Fatalf("%s stream=%v: %v", model, !noStream, err)
			}
			if rej := f.Rejected(); len(rej) != 0 {
				t.Fatalf("%s: rejected: %s", model, rej[0].Rejection)
			}
			if strings.Join(found, ",") != "get_weather" || strings.Join(calls, ",") != "get_weather" {
				t.Errorf("%s: found %v, calls %v", model, found, calls)
			}
			if !reasoning {
				t.Errorf("%s: thought summaries (effort high) were not shown as reasoning", model)
			}
			msgs := s.Messages()
			if got := msgs[len(msgs)-1].Text(); got != "Sunny in Oslo." {
				t.Errorf("%s: answer %q", model, got)
			}
			if !f.Script.Done() {
				t.Errorf("%s: the script's turns were not all used", model)
			}
			reqs := f.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%s: %d requests", model, len(reqs))
			}
			first := tools_(t, reqs[0].Body)
			for i, r := range reqs[1:] {
				if tools_(t, r.Body) != first {
					t.Errorf("%s: request %d tools differ", model, i+2)
				}
			}
			if strings.Contains(first, "get_weather") || !strings.Contains(first, `"name":"tool_search"`) || !strings.Contains(first, `"name":"tool_call"`) {
				t.Errorf("%s: tools array %s", model, first)
			}
			// Every signature the model issued before the last request is
			// sent back, verbatim, in the last request.
			sigs := f.Signatures()
			for _, sig := range sigs[:len(sigs)-1] {
				if !strings.Contains(string(reqs[2].Body), sig) {
					t.Errorf("%s: signature %s not replayed", model, sig)
				}
			}
			if !strings.HasSuffix(reqs[0].Path, ":streamGenerateContent") != noStream {
				t.Errorf("path %s", reqs[0].Path)
			}
			if reqs[0].Header.Get("x-goog-api-key") != geminitest.DefaultKey {
				t.Errorf("key header missing")
			}
		}
	}
}

// A function call of the current turn replayed without its signature is a
// 400 on Gemini 3, as on the real API; the adapter never sends one, even for
// calls another provider made (they get the documented skip value).
func TestSignatureRules(t *testing.T) {
	f := geminitest.NewServer(t)
	f.Script = geminitest.NewScript(geminitest.Turn{Text: "ok"})
	p := gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: f.URL})
	call := agent.ToolCall{ID: "toolu_01", Name: "3d_render", Input: json.RawMessage(`{"scene":"x"}`)}
	history := []agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("render")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(call),
			agent.RawPart("anthropic", "messages", json.RawMessage(`[{"type":"tool_use","id":"toolu_01","name":"3d_render","input":{"scene":"x"}}]`))}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "toolu_01", Name: "3d_render", Text: "done"})}},
	}
	ts := toolSet(t)
	req := &agent.Request{Model: "gemini-3-pro-preview", Messages: history, Tools: []agent.ToolDef{{Name: "3d_render", Schema: ts.Active()[0].Schema}}}
	if _, err := p.Send(t.Context(), req, nil); err != nil {
		t.Fatalf("a call from another provider: %v", err)
	}
	if !bytes.Contains(f.Requests()[0].Body, []byte(gemini.SkipSignature)) {
		t.Errorf("no skip signature: %s", f.Requests()[0].Body)
	}

	// Gemini's own content with its signature stripped: rejected.
	f2 := geminitest.NewServer(t)
	f2.Script = geminitest.NewScript(geminitest.Turn{Call: "3d_render", Input: map[string]any{"scene": "x"}}, geminitest.Turn{Text: "done"})
	s := agent.New(agent.Config{Provider: gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: f2.URL}), Model: "gemini-3-pro-preview",
		Tools: ts, Backoff: time.Millisecond})
	// The fake's script calls the declared wire name; find it from the first request.
	if err := s.Run(t.Context(), "render", func(agent.Event) {}); err != nil {
		t.Logf("first run: %v", err)
	}
	msgs := s.Messages()
	var stripped []agent.Message
	for _, m := range msgs {
		m2 := m
		m2.Parts = nil
		for _, pt := range m.Parts {
			if pt.Raw != nil && pt.Raw.Provider == "gemini" {
				var w map[string]any
				_ = json.Unmarshal(pt.Raw.Data, &w)
				for _, part := range w["parts"].([]any) {
					delete(part.(map[string]any), "thoughtSignature")
				}
				b, _ := json.Marshal(w)
				pt = agent.RawPart("gemini", "generateContent", b)
			}
			m2.Parts = append(m2.Parts, pt)
		}
		stripped = append(stripped, m2)
	}
	sreq := s.BuildRequest()
	sreq.Model, sreq.Messages = "gemini-3-pro-preview", stripped
	_, err := s.TurnContext().Provider.Send(t.Context(), sreq, nil)
	var ae *agent.APIError
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, "missing a thought_signature") {
		t.Fatalf("stripped signature: err = %v", err)
	}
}

func TestThinkingConfigFromEffort(t *testing.T) {
	cases := []struct{ model, effort, want string }{
		{"gemini-3-pro-preview", "high", `"thinkingConfig":{"thinkingLevel":"high","includeThoughts":true}`},
		{"gemini-3-pro-preview", "minimal", `"thinkingConfig":{"thinkingLevel":"low","includeThoughts":true}`},
		{"gemini-2.5-flash", "none", `"thinkingConfig":{"thinkingBudget":0}`},
		{"gemini-2.5-pro", "none", `"thinkingConfig":{"thinkingBudget":1024,"includeThoughts":true}`},
		{"gemini-2.5-flash", "medium", `"thinkingConfig":{"thinkingBudget":8192,"includeThoughts":true}`},
		{"gemini-2.5-flash", "", `"generationConfig":{"maxOutputTokens":`},
	}
	for _, c := range cases {
		p := gemini.New(gemini.Options{Effort: c.effort})
		body, _, err := p.Render(&agent.Request{Model: c.model, Messages: []agent.Message{{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hi")}}}})
		if err != nil || !strings.Contains(string(body), c.want) {
			t.Errorf("%s/%s: %s (err %v)", c.model, c.effort, body, err)
		}
		if c.effort == "" && strings.Contains(string(body), "thinkingConfig") {
			t.Errorf("no effort, yet %s", body)
		}
	}
}

func TestUsageAndBadKey(t *testing.T) {
	f := geminitest.NewServer(t)
	f.Script = geminitest.NewScript(geminitest.Turn{Text: "hello there"})
	p := gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: f.URL})
	resp, err := p.Send(t.Context(), &agent.Request{Model: "gemini-2.5-flash", Messages: []agent.Message{{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hi")}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage.OutputTokens != 12 || resp.Usage.InputTokens == 0 || resp.StopReason != agent.StopEnd || resp.Message.Text() != "hello there" {
		t.Errorf("resp = %+v", resp)
	}
	bad := gemini.New(gemini.Options{APIKey: "nope", BaseURL: f.URL})
	_, err = bad.Send(t.Context(), &agent.Request{Model: "gemini-2.5-flash", Messages: []agent.Message{{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hi")}}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
		t.Errorf("err = %v", err)
	}
}

// Parallel calls are answered in one content, in number; a call whose turn
// was cut off gets an interrupted answer; stray answers are dropped; the
// fake accepts the result.
func TestPairing(t *testing.T) {
	f := geminitest.NewServer(t)
	f.Script = geminitest.NewScript(geminitest.Turn{Text: "ok"})
	p := gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: f.URL})
	call := func(id string) agent.Part {
		return agent.ToolCallPart(agent.ToolCall{ID: id, Name: "read_file", Input: json.RawMessage(`{"path":"/` + id + `"}`)})
	}
	res := func(id string) agent.Part {
		return agent.ToolResultPart(agent.ToolResult{CallID: id, Name: "read_file", Text: "content of " + id})
	}
	msgs := []agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("read a and b")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Reading both."), call("a"), call("b")}},
		{Role: agent.RoleUser, Parts: []agent.Part{res("b"), res("a"), res("zzz")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{call("c")}, Interrupted: true},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("go on")}},
	}
	req := &agent.Request{Model: "gemini-3-pro-preview", Messages: msgs,
		Tools: []agent.ToolDef{{Name: "read_file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}
	if _, err := p.Send(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text             string `json:"text"`
				FunctionResponse *struct {
					Name     string         `json:"name"`
					Response map[string]any `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(f.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	roles := ""
	for _, c := range body.Contents {
		roles += c.Role[:1]
	}
	if roles != "umumu" {
		t.Fatalf("roles %s: %s", roles, f.Requests()[0].Body)
	}
	second := body.Contents[2].Parts
	if len(second) != 2 || second[0].FunctionResponse.Response["output"] != "content of a" || second[1].FunctionResponse.Response["output"] != "content of b" {
		t.Errorf("answers of a and b: %s", f.Requests()[0].Body)
	}
	last := body.Contents[4].Parts
	if len(last) != 2 || last[0].FunctionResponse == nil || last[0].FunctionResponse.Response["error"] != agent.InterruptedResult || last[1].Text != "go on" {
		t.Errorf("interrupted call: %s", f.Requests()[0].Body)
	}
}

// A 429 is retried after the RetryInfo delay the body names; a malformed
// function call (no content) is asked again.
func TestRetries(t *testing.T) {
	f := geminitest.NewServer(t)
	f.FailNext(geminitest.Fault{Status: 429, GStatus: "RESOURCE_EXHAUSTED", Message: "quota", RetryDelay: "0.001s"}, geminitest.Fault{Malformed: true})
	f.Script = geminitest.NewScript(geminitest.Turn{Text: "fine"})
	s := newSession(t, f, "gemini-2.5-flash", false)
	_ = s.Override(func(turn *agent.TurnContext) { turn.Retries = 3 })
	var warnings []string
	err := s.Run(t.Context(), "hi", func(e agent.Event) {
		if e.Type == agent.EventWarning {
			warnings = append(warnings, e.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.Requests()); n != 3 {
		t.Errorf("requests = %d, want 3", n)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[1], "malformed function call") {
		t.Errorf("warnings = %q", warnings)
	}
	p := gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: f.URL})
	f.FailNext(geminitest.Fault{Status: 429, GStatus: "RESOURCE_EXHAUSTED", Message: "quota", RetryDelay: "23s"})
	_, err = p.Send(t.Context(), &agent.Request{Model: "gemini-2.5-flash", Messages: []agent.Message{{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hi")}}}}, nil)
	var ae *agent.APIError
	if !errors.As(err, &ae) || ae.RetryAfter != "23" || !ae.Retryable() {
		t.Errorf("err = %v (retry after %q)", err, ae.RetryAfter)
	}
}

// Images a tool returned go back nested in its functionResponse on Gemini 3
// (multimodal function responses); Gemini 2.5 rejects media there, so it
// gets a note instead. The fake applies both rules.
func TestToolResultImages(t *testing.T) {
	const png = "iVBORw0KGgo="
	msgs := []agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("screenshot the page")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: "s1", Name: "screenshot", Input: json.RawMessage(`{}`)})}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "s1", Name: "screenshot",
			Images: []agent.Image{{MediaType: "image/png", Data: png}}})}},
	}
	type response struct {
		Response map[string]any `json:"response"`
		Parts    []struct {
			InlineData *struct {
				MimeType string `json:"mimeType"`
				Data     string `json:"data"`
			} `json:"inlineData"`
		} `json:"parts"`
	}
	sent := func(t *testing.T, model string) (response, *geminitest.Server) {
		f := geminitest.NewServer(t)
		f.Script = geminitest.NewScript(geminitest.Turn{Text: "A login form."})
		p := gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: f.URL})
		req := &agent.Request{Model: model, Messages: msgs, Tools: []agent.ToolDef{{Name: "screenshot"}}}
		if _, err := p.Send(t.Context(), req, nil); err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		var body struct {
			Contents []struct {
				Parts []struct {
					FunctionResponse *response `json:"functionResponse"`
				} `json:"parts"`
			} `json:"contents"`
		}
		if err := json.Unmarshal(f.Requests()[0].Body, &body); err != nil {
			t.Fatal(err)
		}
		return *body.Contents[2].Parts[0].FunctionResponse, f
	}
	r, _ := sent(t, "gemini-3-pro-preview")
	if len(r.Parts) != 1 || r.Parts[0].InlineData == nil || r.Parts[0].InlineData.MimeType != "image/png" || r.Parts[0].InlineData.Data != png {
		t.Errorf("gemini 3: the image is not in the function response's parts: %+v", r)
	}
	if out, _ := r.Response["output"].(string); !strings.Contains(out, "1 image(s) attached") {
		t.Errorf("gemini 3: output %q does not say an image is attached", out)
	}
	r, f := sent(t, "gemini-2.5-flash")
	if len(r.Parts) != 0 {
		t.Errorf("gemini 2.5: media sent in the function response: %+v", r)
	}
	if out, _ := r.Response["output"].(string); !strings.Contains(out, "not shown") {
		t.Errorf("gemini 2.5: output %q does not say the image was left out", out)
	}
	// The fake's rule, checked directly: media in a function response is a
	// 400 on 2.5.
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"screenshot","args":{}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"screenshot","response":{"output":""},"parts":[{"inlineData":{"mimeType":"image/png","data":"` + png + `"}}]}}]}]}`
	resp, err := http.Post(f.URL+"/v1beta/models/gemini-2.5-flash:generateContent?key="+geminitest.DefaultKey, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(msg), "Multimodal function responses are not supported") {
		t.Errorf("the fake took media in a 2.5 function response: %d %s", resp.StatusCode, msg)
	}
}

// A free-form object parameter goes to Gemini as JSON text (an object
// without properties is a 400 there); the tool still receives the object.
func TestFreeFormObjectAsText(t *testing.T) {
	f := geminitest.NewServer(t)
	f.Script = geminitest.NewScript(
		geminitest.Turn{Call: "launch", Input: map[string]any{"url": "https://x", "launchOptions": `{"headless":true}`}},
		geminitest.Turn{Text: "Launched."})
	var got json.RawMessage
	set := tools.NewSet()
	if err := set.Add(nil, tools.Tool{Name: "launch", Description: "Launch a browser",
		Schema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"},"launchOptions":{"type":"object","description":"Puppeteer options"}},"required":["url"]}`),
		Exec: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
			got = args
			return tools.Result{Text: "ok"}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	p := gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: f.URL})
	s := agent.New(agent.Config{Provider: p, Model: "gemini-2.5-flash", Tools: set, Backoff: time.Millisecond})
	if err := s.Run(t.Context(), "Launch it.", func(agent.Event) {}); err != nil {
		t.Fatal(err)
	}
	if rej := f.Rejected(); len(rej) != 0 {
		t.Fatalf("rejected: %s", rej[0].Rejection)
	}
	if !strings.Contains(tools_(t, f.Requests()[0].Body), `"launchOptions":{"description":"Puppeteer options (a JSON object, as text)","type":"string"}`) {
		t.Errorf("tools %s", tools_(t, f.Requests()[0].Body))
	}
	if string(got) != `{"launchOptions":{"headless":true},"url":"https://x"}` {
		t.Errorf("the tool got %s", got)
	}
}

// Over 512 function declarations Gemini answers 400 (the fake's rule): a
// session does not send such a request (agent.ToolLimiter) and says how to
// stay under the limit; the adapter sent one anyway explains the 400 the
// same way.
func TestTooManyDeclarationsSaysDefer(t *testing.T) {
	f := geminitest.NewServer(t)
	set := tools.NewSet()
	var many []tools.Tool
	for i := range geminitest.MaxDeclarations + 1 {
		many = append(many, tools.Tool{Name: fmt.Sprintf("t%d", i), Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`),
			Exec: func(context.Context, json.RawMessage) (tools.Result, error) { return tools.Result{}, nil }})
	}
	if err := set.Add(nil, many...); err != nil {
		t.Fatal(err)
	}
	p := gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: f.URL})
	s := agent.New(agent.Config{Provider: p, Model: "gemini-2.5-flash", Tools: set, Backoff: time.Millisecond})
	err := s.Run(t.Context(), "hi", func(agent.Event) {})
	if !errors.Is(err, agent.ErrTooManyTools) || !strings.Contains(err.Error(), "gemini takes at most 512 tools in a request and this one would carry 513") || !strings.Contains(err.Error(), "--defer") {
		t.Fatalf("session error %v, want the limit with the --defer hint", err)
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d requests sent over the limit", n)
	}
	_, err = p.Send(t.Context(), s.BuildRequest(), func(agent.StreamEvent) {})
	var ae *agent.APIError
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, "At most 512 function declarations") || !strings.Contains(ae.Message, "513 functions were declared") || !strings.Contains(ae.Message, "--defer") {
		t.Fatalf("error %v, want the 400 with the --defer hint", err)
	}
}
