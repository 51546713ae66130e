package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/tools"
)

const model = "claude-sonnet-4-5-20250929"

func weatherTools(t *testing.T) *tools.Set {
	t.Helper()
	s := tools.NewSet()
	exec := func(text string) tools.Executor {
		return func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
			return tools.Result{Text: text + " " + string(args)}, nil
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Add(nil, tools.Tool{Name: "read_file", Description: "Read a file from disk",
		Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`), Exec: exec("file")}))
	must(s.Add([]tools.Option{tools.Defer(true)},
		tools.Tool{Name: "weather_lookup", Description: "Looks up the current weather for a city",
			Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]}`), Exec: exec("sunny")},
		tools.Tool{Name: "stock_price", Description: "Looks up the current price of a stock ticker",
			Schema: json.RawMessage(`{"type":"object","properties":{"ticker":{"type":"string"}},"required":["ticker"]}`), Exec: exec("42")},
	))
	return s
}

type clientSearcher struct{ names []string }

func (c clientSearcher) Search(ctx context.Context, call agent.SearchCall) ([]string, error) {
	return c.names, nil
}

func newSession(t *testing.T, srv *anthropictest.Server, mode agent.SearchMode, noStream bool) *agent.Session {
	return agent.New(agent.Config{
		Provider: anthropic.New(anthropic.Options{APIKey: anthropictest.DefaultAPIKey, BaseURL: srv.URL}),
		Model:    model, Tools: weatherTools(t), Search: mode, NoStream: noStream,
		Searcher: clientSearcher{[]string{"weather_lookup"}},
		Backoff:  time.Millisecond,
	})
}

func run(t *testing.T, s *agent.Session, prompt string) ([]agent.Event, error) {
	t.Helper()
	var evs []agent.Event
	err := s.Run(context.Background(), prompt, func(e agent.Event) { evs = append(evs, e) })
	return evs, err
}

// assistantContent returns the content arrays of the assistant messages of a request.
func assistantContent(t *testing.T, r *anthropictest.Request) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for _, m := range r.Messages() {
		var w struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(m, &w); err != nil {
			t.Fatal(err)
		}
		if w.Role == "assistant" {
			out = append(out, w.Content)
		}
	}
	return out
}

func TestSessionNativeSearchEndToEnd(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		t.Run(map[bool]string{false: "stream", true: "json"}[noStream], func(t *testing.T) {
			srv := anthropictest.NewServer(t)
			srv.Script = anthropictest.NewScript(
				anthropictest.Turn{Text: "Let me find a weather tool.", Search: "weather city", Call: "$found", Input: `{"city":"Berlin"}`},
				anthropictest.Turn{Text: "It is sunny in Berlin."},
			)
			s := newSession(t, srv, agent.SearchNative, noStream)
			evs, err := run(t, s, "What is the weather in Berlin?")
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("got %d requests, want 2", len(reqs))
			}
			for _, r := range reqs {
				if r.Status != 200 {
					t.Fatalf("fake rejected a request: %d %s", r.Status, r.Rejection)
				}
			}
			if !bytes.Equal(reqs[0].Tools(), reqs[1].Tools()) {
				t.Errorf("tools array changed between requests:\n%s\n%s", reqs[0].Tools(), reqs[1].Tools())
			}
			// The second request replays the first answer's content verbatim.
			hist := s.Messages()
			raw := hist[1].RawFor("anthropic", "messages")
			if raw == nil {
				t.Fatal("assistant message has no raw part")
			}
			got := assistantContent(t, reqs[1])
			if len(got) != 1 || !bytes.Equal(got[0], raw.Data) {
				t.Errorf("replayed content differs from raw:\n got %s\nwant %s", got, raw.Data)
			}
			for _, want := range []string{`"server_tool_use"`, `"tool_search_tool_result"`, `"tool_name":"weather_lookup"`} {
				if !bytes.Contains(raw.Data, []byte(want)) {
					t.Errorf("raw lacks %s: %s", want, raw.Data)
				}
			}
			var searched, called bool
			for _, e := range evs {
				if e.Type == agent.EventSearchFinished && e.Search.Where == agent.WhereProvider && len(e.Search.Tools) > 0 && e.Search.Tools[0] == "weather_lookup" {
					searched = true
				}
				if e.Type == agent.EventToolFinished && e.Tool.Name == "weather_lookup" && !e.Tool.IsError && e.Tool.Discovered {
					called = true
				}
			}
			if !searched || !called {
				t.Errorf("searched=%v called=%v; events: %+v", searched, called, evs)
			}
			if got := hist[len(hist)-1].Text(); got != "It is sunny in Berlin." {
				t.Errorf("final answer %q", got)
			}
			if u := s.Usage(); u.CacheReadTokens == 0 || u.CacheWriteTokens == 0 {
				t.Errorf("cache usage not reported: %+v", u)
			}
		})
	}
}

func TestSessionClientSearchEndToEnd(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Script = anthropictest.NewScript(
		anthropictest.Turn{Search: "weather", Call: "$found", Input: `{"city":"Paris"}`},
		anthropictest.Turn{Text: "Sunny in Paris."},
	)
	s := newSession(t, srv, agent.SearchClient, false)
	if _, err := run(t, s, "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("got %d requests, want 3 (search, call, answer)", len(reqs))
	}
	for i, r := range reqs {
		if r.Status != 200 {
			t.Fatalf("request %d rejected: %s", i, r.Rejection)
		}
		if !bytes.Equal(r.Tools(), reqs[0].Tools()) {
			t.Errorf("tools array of request %d differs", i)
		}
	}
	if !bytes.Contains(reqs[1].Body, []byte(`{"type":"tool_reference","tool_name":"weather_lookup"}`)) {
		t.Errorf("client search result not sent as tool_reference: %s", reqs[1].Body)
	}
	if got := s.Messages()[len(s.Messages())-1].Text(); got != "Sunny in Paris." {
		t.Errorf("final answer %q", got)
	}
}

func TestSessionSplitSearch(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Script = anthropictest.NewScript(
		anthropictest.Turn{Text: "Reading first.", Search: "weather", SplitSearch: true, Call: "read_file", Input: `{"path":"notes.txt"}`},
		anthropictest.Turn{Call: "weather_lookup", Input: `{"city":"Oslo"}`},
		anthropictest.Turn{Text: "Done."},
	)
	s := newSession(t, srv, agent.SearchNative, false)
	if _, err := run(t, s, "Weather in Oslo, and read my notes"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("got %d requests", len(reqs))
	}
	for i, r := range reqs {
		if r.Status != 200 {
			t.Fatalf("request %d rejected: %s", i, r.Rejection)
		}
	}
	hist := s.Messages()
	// The second answer opens with the result of the search begun in the first.
	second := hist[3]
	if second.Parts[0].Type != agent.PartSearchResult || second.Parts[0].SearchResult.Tools[0] != "weather_lookup" {
		t.Errorf("second answer should open with the search result: %+v", second.Parts)
	}
	asst := assistantContent(t, reqs[2])
	if len(asst) != 2 || !bytes.Equal(asst[0], hist[1].RawFor("anthropic", "messages").Data) ||
		!bytes.Equal(asst[1], hist[3].RawFor("anthropic", "messages").Data) {
		t.Errorf("split halves not replayed in their own messages: %s", asst)
	}
}

func TestSessionStreamCutKeepsText(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Enqueue(anthropictest.Reply{Content: []json.RawMessage{anthropictest.Text("Hello there, this is a long answer"),
		anthropictest.ToolUse("toolu_x", "read_file", map[string]string{"path": "a"})}, CutAfter: 6})
	s := newSession(t, srv, agent.SearchNative, false)
	_ = s.Override(func(turn *agent.TurnContext) { turn.Retries = 1 })
	_, err := run(t, s, "hi")
	if err == nil || !strings.Contains(err.Error(), "stream cut") {
		t.Fatalf("want a stream cut error, got %v", err)
	}
	hist := s.Messages()
	if len(hist) != 2 || !hist[1].Interrupted || hist[1].Text() == "" {
		t.Fatalf("partial message not kept: %+v", hist)
	}
	for _, p := range hist[1].Parts {
		if p.Type == agent.PartToolCall {
			t.Errorf("incomplete tool call kept: %+v", p)
		}
	}
	// The conversation goes on: the partial message is valid history.
	srv.Enqueue(anthropictest.Message(anthropictest.Text("again")))
	if _, err := run(t, s, "continue"); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[1]; r.Status != 200 {
		t.Fatalf("history after a cut rejected: %s", r.Rejection)
	}
}

func TestSessionRetriesOverload(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Enqueue(anthropictest.Overloaded("0"), anthropictest.RateLimited("0"),
		anthropictest.Reply{StreamError: "overloaded_error", CutAfter: 1},
		anthropictest.Message(anthropictest.Text("finally")))
	s := newSession(t, srv, agent.SearchNative, false)
	evs, err := run(t, s, "hi")
	if err != nil {
		t.Fatal(err)
	}
	warnings := 0
	for _, e := range evs {
		if e.Type == agent.EventWarning {
			warnings++
		}
	}
	if warnings != 3 || len(srv.Requests()) != 4 {
		t.Errorf("warnings=%d requests=%d, want 3 and 4", warnings, len(srv.Requests()))
	}
	if got := s.Messages()[1].Text(); got != "finally" {
		t.Errorf("answer %q", got)
	}
}

func TestSessionOverloadGivesUp(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Handler = func(*anthropictest.Request) anthropictest.Reply { return anthropictest.Overloaded("0") }
	s := newSession(t, srv, agent.SearchNative, false)
	_ = s.Override(func(turn *agent.TurnContext) { turn.Retries = 2 })
	_, err := run(t, s, "hi")
	var ae *agent.APIError
	if !errors.As(err, &ae) || ae.Status != 529 || ae.Type != "overloaded_error" || ae.RetryAfter != "0" {
		t.Fatalf("got %v", err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}
