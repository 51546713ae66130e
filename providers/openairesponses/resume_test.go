package openairesponses_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openairesponses"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
	"github.com/agent-dev/agent/tools"
)

// A session resumed after the server of a tool its search found was
// removed goes on, in every search form: the strict fake accepts the
// request that replays the call of a tool no longer declared.
func TestResumeWithoutFoundTool(t *testing.T) {
	cases := []struct {
		name  string
		model string
		mode  agent.SearchMode
		turns []rt.Turn
	}{
		{"hosted", "gpt-5.4", agent.SearchNative, []rt.Turn{{rt.HostedSearch("weather"), rt.Call("get_weather", `{"city":"Paris"}`)}, {rt.Text("Sunny.")}}},
		{"client tool_search", "gpt-5.4", agent.SearchClient, []rt.Turn{{rt.ClientSearch("weather")}, {rt.Call("get_weather", `{"city":"Paris"}`)}, {rt.Text("Sunny.")}}},
		{"client functions", "gpt-4.1", agent.SearchNative, []rt.Turn{{rt.Call("tool_search", `{"query":"weather"}`)}, {rt.Call("tool_call", `{"name":"get_weather","arguments":{"city":"Paris"}}`)}, {rt.Text("Sunny.")}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := rt.NewServer(t)
			srv.Script(append(c.turns, rt.Turn{rt.Text("Without it.")})...)
			s, _ := newSession(t, srv, c.model, c.mode, false)
			run(t, s, "weather in Paris?")
			set := tools.NewSet()
			if err := set.Add([]tools.Option{tools.Defer(true)}, tools.Tool{Name: "stock_price", Description: "Look up a stock price",
				Schema: json.RawMessage(`{"type":"object","properties":{"symbol":{"type":"string"}}}`), Server: "finance",
				Exec: func(context.Context, json.RawMessage) (tools.Result, error) { return tools.Result{Text: "42"}, nil }}); err != nil {
				t.Fatal(err)
			}
			p := openairesponses.New(openairesponses.Options{APIKey: rt.DefaultKey, BaseURL: srv.URL})
			resumed := agent.New(agent.Config{Provider: p, Model: c.model, Tools: set, Search: c.mode,
				Searcher: fakeSearcher{set}, Backoff: time.Millisecond})
			resumed.Reset(s.Messages())
			if err := resumed.Run(context.Background(), "And now?", func(agent.Event) {}); err != nil {
				reqs := srv.Requests()
				t.Fatalf("%v\n%s", err, strings.TrimSpace(string(reqs[len(reqs)-1].Body)))
			}
		})
	}
}
