package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/tools"
)

// Web search runs on the provider: its sources are parsed once each, usage
// counts it, and a resumed session replays its blocks.
func TestSessionWebSearchResumed(t *testing.T) {
	srv := anthropictest.NewServer(t)
	reply := anthropictest.Reply{Content: append(
		anthropictest.WebSearch("srvtoolu_web1", "berlin weather", [2]string{"https://a.example/w", "Weather A"}, [2]string{"https://b.example/x", "B"}),
		anthropictest.CitedText("Sunny, says A.", "https://a.example/w", "Weather A"),
		anthropictest.CitedText(" Again A.", "https://a.example/w", "Weather A")),
		ServerToolUses: map[string]int{"web_search_requests": 1}}
	srv.Enqueue(reply, anthropictest.Message(anthropictest.Text("Still sunny.")))
	s := newSession(t, srv, agent.SearchNative, false)
	_ = s.Override(func(turn *agent.TurnContext) {
		turn.ProviderTools = []agent.ProviderTool{{Alias: "web_search", Options: json.RawMessage(`{"max_uses":3}`)}}
	})
	evs, err := run(t, s, "Weather in Berlin? Search the web.")
	if err != nil {
		t.Fatal(err)
	}
	var st *agent.ServerTool
	for _, p := range s.Messages()[1].Parts {
		if p.ServerTool != nil {
			st = p.ServerTool
		}
	}
	if st == nil || st.Name != "web_search" || len(st.Sources) != 2 || st.Sources[0].Title != "Weather A" || string(st.Input) != `{"query":"berlin weather"}` {
		t.Fatalf("server tool %+v", st)
	}
	served := 0
	for _, e := range evs {
		if e.Type == agent.EventServerTool {
			served++
		}
	}
	if served != 1 || s.Usage().ServerToolUses["web_search_requests"] != 1 {
		t.Errorf("server tool events %d, usage %+v", served, s.Usage())
	}
	if !bytes.Contains(srv.Requests()[0].Tools(), []byte(`{"type":"web_search_20250305","name":"web_search","max_uses":3`)) {
		t.Errorf("tools %s", srv.Requests()[0].Tools())
	}
	// Resume: a new session over the stored history.
	resumed := newSession(t, srv, agent.SearchNative, false)
	_ = resumed.Override(func(turn *agent.TurnContext) { turn.ProviderTools = s.TurnContext().ProviderTools })
	resumed.Reset(s.Messages())
	if _, err := run(t, resumed, "And tomorrow?"); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[1]
	if r.Status != 200 || !bytes.Contains(r.Body, s.Messages()[1].RawFor("anthropic", "messages").Data) {
		t.Errorf("resumed request %d %s: web search blocks not replayed verbatim", r.Status, r.Rejection)
	}
}

// A conversation switches search mode, model and provider history under
// way; the strict fake accepts every request.
func TestSessionSwitchesAreAccepted(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Script = anthropictest.NewScript(
		anthropictest.Turn{Search: "weather", Call: "$found", Input: `{"city":"Berlin"}`},
		anthropictest.Turn{Text: "Sunny."},
		anthropictest.Turn{Text: "Client mode now."},
		anthropictest.Turn{Text: "Search off now."},
		anthropictest.Turn{Text: "Old model now."},
		anthropictest.Turn{Text: "After another provider."},
	)
	s := newSession(t, srv, agent.SearchNative, false)
	steps := []func(){
		func() {},
		func() { _ = s.Override(func(turn *agent.TurnContext) { turn.Search = agent.SearchClient }) },
		func() { _ = s.Override(func(turn *agent.TurnContext) { turn.Search = agent.SearchOff }) },
		func() {
			_ = s.Override(func(turn *agent.TurnContext) {
				turn.Search, turn.Model = agent.SearchNative, "claude-opus-4-1-20250805"
			})
		},
		func() {
			_ = s.Override(func(turn *agent.TurnContext) { turn.Model = model })
			s.Reset(append(s.Messages(), agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("(from openai)")}},
				agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{
					agent.SearchCallPart(agent.SearchCall{ID: "tsc_1", Where: agent.WhereProvider, Names: []string{"stock_price"}}),
					agent.SearchResultPart(agent.SearchResult{CallID: "tsc_1", Where: agent.WhereProvider, Tools: []string{"stock_price"}}),
					agent.ToolCallPart(agent.ToolCall{ID: "fc_1.x", Name: "stock_price", Input: json.RawMessage(`{"ticker":"ACME"}`)}),
					agent.RawPart("openai", "responses", json.RawMessage(`[]`)),
				}},
				agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "fc_1.x", Text: "42"})}},
				agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("ACME is at 42.")}}))
		},
	}
	for i, step := range steps {
		step()
		if _, err := run(t, s, "next"); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	for i, r := range srv.Requests() {
		if r.Status != 200 {
			t.Errorf("request %d rejected: %s", i, r.Rejection)
		}
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if bytes.Contains(last.Body, []byte("tool_search_call")) || !bytes.Contains(last.Body, []byte(`"tool_use_id":"fc_1_x"`)) {
		t.Errorf("foreign history not rendered in this API's form: %s", last.Body)
	}
}

// A conversation from a Chat server that numbers every response's calls
// from zero, and whose ids sanitize alike, goes on here: the API refuses a
// tool_use id used twice in a request, so the repeats are renamed, each
// result still answering its own call.
func TestForeignRepeatedCallIDs(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Script = anthropictest.NewScript(anthropictest.Turn{Text: "Noted."})
	s := newSession(t, srv, agent.SearchOff, false)
	call := func(id, city string) agent.Part {
		return agent.ToolCallPart(agent.ToolCall{ID: id, Name: "weather_lookup", Input: json.RawMessage(`{"city":"` + city + `"}`)})
	}
	result := func(id, text string) agent.Part {
		return agent.ToolResultPart(agent.ToolResult{CallID: id, Name: "weather_lookup", Text: text})
	}
	s.Reset([]agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("Weather in three cities?")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{call("call_0", "Oslo")}},
		{Role: agent.RoleUser, Parts: []agent.Part{result("call_0", "rain in Oslo")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{call("call_0", "Bergen")}},
		{Role: agent.RoleUser, Parts: []agent.Part{result("call_0", "snow in Bergen")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{call("f.1", "Rome"), call("f:1", "Bari")}},
		{Role: agent.RoleUser, Parts: []agent.Part{result("f.1", "sun in Rome"), result("f:1", "wind in Bari")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Rain, snow, sun and wind.")}},
	})
	if _, err := run(t, s, "Thanks."); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Status != 200 {
		t.Fatalf("rejected: %s", r.Rejection)
	}
	// Each result answers the call of its city.
	cityOf := map[string]string{}
	var pairs []string
	for _, m := range r.Messages() {
		var w struct {
			Content []struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
				Input     struct{ City string }
				Content   []struct{ Text string }
			}
		}
		_ = json.Unmarshal(m, &w)
		for _, b := range w.Content {
			switch b.Type {
			case "tool_use":
				cityOf[b.ID] = b.Input.City
			case "tool_result":
				if len(b.Content) == 1 {
					pairs = append(pairs, cityOf[b.ToolUseID]+": "+b.Content[0].Text)
				}
			}
		}
	}
	want := []string{"Oslo: rain in Oslo", "Bergen: snow in Bergen", "Rome: sun in Rome", "Bari: wind in Bari"}
	if strings.Join(pairs, "; ") != strings.Join(want, "; ") {
		t.Errorf("results answer %q, want %q", pairs, want)
	}
}

// A session resumed after the tool its native search found went away (its
// server removed from the settings) goes on: the API refuses a
// tool_reference to a tool the request does not carry ("Tool reference
// 'weather_lookup' not found in available tools").
func TestResumeWithoutFoundTool(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Script = anthropictest.NewScript(
		anthropictest.Turn{Search: "weather", Call: "$found", Input: `{"city":"Berlin"}`},
		anthropictest.Turn{Text: "Sunny."},
		anthropictest.Turn{Text: "Without it."},
	)
	s := newSession(t, srv, agent.SearchNative, false)
	if _, err := run(t, s, "Weather in Berlin?"); err != nil {
		t.Fatal(err)
	}
	set := tools.NewSet()
	if err := set.Add([]tools.Option{tools.Defer(true)}, tools.Tool{Name: "stock_price", Description: "Looks up a stock price",
		Schema: json.RawMessage(`{"type":"object","properties":{"ticker":{"type":"string"}}}`),
		Exec:   func(context.Context, json.RawMessage) (tools.Result, error) { return tools.Result{Text: "42"}, nil }}); err != nil {
		t.Fatal(err)
	}
	resumed := agent.New(agent.Config{
		Provider: anthropic.New(anthropic.Options{APIKey: anthropictest.DefaultAPIKey, BaseURL: srv.URL}),
		Model:    model, Tools: set, Search: agent.SearchNative, Backoff: time.Millisecond,
	})
	resumed.Reset(s.Messages())
	if _, err := run(t, resumed, "And now?"); err != nil {
		t.Fatal(err)
	}
}

// A paused turn (pause_turn) goes back as the request's last message for
// the API to go on; its text may end with whitespace, which the API
// refuses at the end of a final assistant message.
func TestPausedTurnEndingInWhitespace(t *testing.T) {
	for _, stream := range []bool{true, false} {
		srv := anthropictest.NewServer(t)
		srv.Enqueue(anthropictest.Reply{Content: []json.RawMessage{anthropictest.Text("Still searching. \n")}, StopReason: "pause_turn"},
			anthropictest.Message(anthropictest.Text("Found it.")))
		s := newSession(t, srv, agent.SearchNative, !stream)
		if _, err := run(t, s, "Look it up."); err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		msgs := s.Messages()
		if got := msgs[len(msgs)-1].Text(); got != "Found it." {
			t.Errorf("stream=%v: answer %q", stream, got)
		}
	}
}
