package openaichat

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	"github.com/agent-dev/agent/tools/search"
)

// The three query forms the tool_search description teaches reach the real
// engine (tools/search) as Names, Pattern and Query.
func TestRealSearchEngineQueryForms(t *testing.T) {
	for _, q := range []string{"weather forecast for a city", "select:weather_lookup", "/weather_look/"} {
		t.Run(q, func(t *testing.T) {
			fake := chattest.NewServer(t)
			fake.Script(chattest.Calls(chattest.SearchCall("call_s", q, 0)), chattest.Text("ok"))
			s := testSession(t, fake)
			_ = s.Override(func(turn *agent.TurnContext) { turn.Searcher = search.NewSearcher(s.Tools()) })
			run(t, s, "weather?")
			reqs := fake.Requests()
			if got := lastMessage(reqs[1]).Text(); !strings.Contains(got, `"name":"weather_lookup"`) {
				t.Errorf("query %q found %s", q, got)
			}
			if d := agent.Discovered(s.Messages()); len(d) == 0 || d[0] != "weather_lookup" {
				t.Errorf("discovered %v", d)
			}
		})
	}
}
