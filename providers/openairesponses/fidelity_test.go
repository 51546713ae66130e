package openairesponses_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

func accepted(t *testing.T, srv *rt.Server) []rt.Request {
	t.Helper()
	reqs := srv.Requests()
	for i, r := range reqs {
		if r.Status != 200 {
			t.Fatalf("request %d rejected: %d %s", i, r.Status, r.Error)
		}
	}
	return reqs
}

// gpt-5-chat-latest is no reasoning model: no include of encrypted
// reasoning (the fake answers the API's 400), function-form search.
func TestChatLatestDeferredSearchAndCall(t *testing.T) {
	srv := rt.NewServer(t)
	srv.Script(
		rt.Turn{rt.Call("tool_search", `{"query":"weather"}`)},
		rt.Turn{rt.Call("tool_call", `{"name":"get_weather","arguments":{"city":"Paris"}}`)},
		rt.Turn{rt.Text("Sunny in Paris.")},
	)
	s, ran := newSession(t, srv, "gpt-5-chat-latest", agent.SearchNative, false)
	run(t, s, "Weather in Paris?")
	for _, r := range accepted(t, srv) {
		if bytes.Contains(r.Body, []byte("encrypted_content")) {
			t.Fatalf("include sent to a model without encrypted reasoning: %s", r.Body)
		}
	}
	if *ran != 1 {
		t.Errorf("tool ran %d times, want 1", *ran)
	}
}

func TestFakeRejectsWhatTheModelLacks(t *testing.T) {
	srv := rt.NewServer(t)
	cases := []struct{ body, want string }{
		{`{"model":"gpt-5-chat-latest","input":"hi","include":["reasoning.encrypted_content"]}`, "Encrypted content is not supported with this model."},
		{`{"model":"gpt-4.1","input":"hi","reasoning":{"effort":"high"}}`, "Unsupported parameter: 'reasoning.effort' is not supported with this model."},
		{`{"model":"gpt-5.1","input":"hi","reasoning":{"effort":"minimal"}}`, "Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model. Supported values are: 'none', 'low', 'medium', and 'high'."},
		// openai/codex#6647, vercel/ai#11056: the 5.1 codex models take no xhigh.
		{`{"model":"gpt-5.1-codex","input":"hi","reasoning":{"effort":"xhigh"}}`, "Unsupported value: 'xhigh' is not supported with the 'gpt-5.1-codex' model. Supported values are: 'low', 'medium', and 'high'."},
		{`{"model":"gpt-4o","input":"hi","max_output_tokens":20000}`, "Invalid 'max_output_tokens': integer above maximum value. Expected a value <= 16384, but got 20000 instead."},
	}
	for _, c := range cases {
		req, _ := http.NewRequest("POST", srv.URL+"/responses", strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer "+rt.DefaultKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		reqs := srv.Requests()
		if last := reqs[len(reqs)-1]; resp.StatusCode != 400 || last.Error != c.want {
			t.Errorf("%s: %d %q, want %q", c.body, resp.StatusCode, last.Error, c.want)
		}
	}
}

// --effort high: reasoning.effort with summary auto on the wire, the
// summary streamed as reasoning events, the reasoning item replayed with
// its encrypted content in the next request.
func TestEffortHighReasoningReplayed(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		srv := rt.NewServer(t)
		srv.Script(
			rt.Turn{rt.Reasoning(), rt.HostedSearch("weather"), rt.Call("get_weather", `{"city":"Paris"}`)},
			rt.Turn{rt.Reasoning(), rt.Text("Sunny.")},
		)
		s, ran := newSession(t, srv, "gpt-5.4", agent.SearchNative, noStream)
		_ = s.Override(func(turn *agent.TurnContext) { turn.Effort = "high" })
		evs := run(t, s, "Weather in Paris?")
		reqs := accepted(t, srv)
		for _, r := range reqs {
			if !bytes.Contains(r.Body, []byte(`"reasoning":{"effort":"high","summary":"auto"}`)) ||
				!bytes.Contains(r.Body, []byte(`"include":["reasoning.encrypted_content"]`)) {
				t.Fatalf("request lacks reasoning/include: %s", r.Body)
			}
		}
		if !bytes.Contains(reqs[1].Body, []byte(`"type":"reasoning"`)) || !bytes.Contains(reqs[1].Body, []byte(`"encrypted_content":"enc_`)) {
			t.Errorf("reasoning item not replayed: %s", reqs[1].Body)
		}
		summary := ""
		for _, e := range evs {
			if e.Type == agent.EventReasoningDelta {
				summary += e.Text
			}
		}
		if !strings.Contains(summary, "I should look this up first.") || *ran != 1 {
			t.Errorf("summary %q, tool ran %d", summary, *ran)
		}
	}
}

// Effort levels map to what each model accepts; a model without effort
// gets none and one notice.
func TestEffortMapping(t *testing.T) {
	cases := []struct{ model, effort, want string }{
		{"gpt-5", "none", `"reasoning":{"effort":"minimal","summary":"auto"}`},
		{"gpt-5.1", "minimal", `"reasoning":{"effort":"low","summary":"auto"}`},
		{"gpt-5.2", "max", `"reasoning":{"effort":"xhigh","summary":"auto"}`},
		{"o3", "max", `"reasoning":{"effort":"high","summary":"auto"}`},
	}
	for _, c := range cases {
		srv := rt.NewServer(t)
		srv.Script(rt.Turn{rt.Text("ok")})
		s, _ := newSession(t, srv, c.model, agent.SearchOff, false)
		_ = s.Override(func(turn *agent.TurnContext) { turn.Effort = c.effort })
		run(t, s, "hi")
		if r := accepted(t, srv)[0]; !bytes.Contains(r.Body, []byte(c.want)) {
			t.Errorf("%s --effort %s: %s", c.model, c.effort, r.Body)
		}
	}
	srv := rt.NewServer(t)
	srv.Script(rt.Turn{rt.Text("ok")}, rt.Turn{rt.Text("ok")})
	s, _ := newSession(t, srv, "gpt-4.1", agent.SearchOff, false)
	_ = s.Override(func(turn *agent.TurnContext) { turn.Effort = "high" })
	notices := 0
	for range 2 {
		for _, e := range run(t, s, "hi") {
			if e.Type == agent.EventWarning && strings.Contains(e.Text, "--effort high ignored") {
				notices++
			}
		}
	}
	if r := accepted(t, srv)[0]; bytes.Contains(r.Body, []byte(`"reasoning"`)) || notices != 1 {
		t.Errorf("gpt-4.1: %d notices, body %s", notices, r.Body)
	}
	// --effort max on gpt-5.1-codex (-mini): high, the most they take,
	// with a warning saying so (xhigh draws a 400, openai/codex#6647).
	for _, c := range []struct{ model, effort, want, warn string }{
		{"gpt-5.1-codex", "max", "high", "--effort max: gpt-5.1-codex takes low, medium, high; sending high"},
		{"gpt-5.1-codex-mini", "max", "high", "--effort max: gpt-5.1-codex-mini takes medium, high; sending high"},
		{"gpt-5.1-codex-max", "max", "xhigh", "--effort max: gpt-5.1-codex-max takes low, medium, high, xhigh; sending xhigh"},
		{"gpt-5.1-codex", "high", "high", ""},
	} {
		srv := rt.NewServer(t)
		srv.Script(rt.Turn{rt.Text("ok")})
		s, _ := newSession(t, srv, c.model, agent.SearchOff, false)
		_ = s.Override(func(turn *agent.TurnContext) { turn.Effort = c.effort })
		var warns []string
		for _, e := range run(t, s, "hi") {
			if e.Type == agent.EventWarning {
				warns = append(warns, e.Text)
			}
		}
		if r := accepted(t, srv)[0]; !bytes.Contains(r.Body, []byte(`"reasoning":{"effort":"`+c.want+`"`)) {
			t.Errorf("%s --effort %s: %s", c.model, c.effort, r.Body)
		}
		if c.warn == "" && len(warns) != 0 || c.warn != "" && (len(warns) != 1 || warns[0] != c.warn) {
			t.Errorf("%s --effort %s: warnings %q, want %q", c.model, c.effort, warns, c.warn)
		}
	}
}

// A function call cut by max_output_tokens is asked again once with the
// model's largest limit.
func TestCutCallRetried(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		srv := rt.NewServer(t)
		srv.Script(
			rt.Turn{rt.CutCall("read_file", `{"path":"a/very/long/path.txt"}`, 100_000)},
			rt.Turn{rt.Text("Done.")},
		)
		s, ran := newSession(t, srv, "gpt-5", agent.SearchOff, noStream)
		run(t, s, "Read it.")
		reqs := accepted(t, srv)
		if len(reqs) != 3 || !bytes.Contains(reqs[0].Body, []byte(`"max_output_tokens":64000`)) ||
			!bytes.Contains(reqs[1].Body, []byte(`"max_output_tokens":128000`)) || *ran != 1 {
			t.Fatalf("%d requests, ran %d: %s", len(reqs), *ran, reqs[0].Body[:80])
		}
	}
}
