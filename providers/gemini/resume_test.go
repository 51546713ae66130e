package gemini_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/gemini"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	"github.com/agent-dev/agent/tools"
)

// A session resumed after the server of a tool its search found was
// removed goes on: Gemini 3 keeps its signed calls, and the strict fake
// accepts the request that replays the call of a tool no longer declared.
func TestResumeWithoutFoundTool(t *testing.T) {
	for _, model := range []string{"gemini-3-pro-preview", "gemini-2.5-flash"} {
		f := geminitest.NewServer(t)
		f.Script = geminitest.NewScript(
			geminitest.Turn{Search: "weather", Call: "$found", Input: map[string]any{"city": "Oslo"}},
			geminitest.Turn{Text: "Sunny in Oslo."},
			geminitest.Turn{Text: "Without it."})
		s := newSession(t, f, model, false)
		if err := s.Run(t.Context(), "Weather in Oslo?", func(agent.Event) {}); err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		set := tools.NewSet()
		if err := set.Add([]tools.Option{tools.Defer(true)}, tools.Tool{Name: "stock_price", Description: "Look up a stock price",
			Schema: json.RawMessage(`{"type":"object","properties":{"ticker":{"type":"string"}}}`),
			Exec:   func(context.Context, json.RawMessage) (tools.Result, error) { return tools.Result{Text: "42"}, nil }}); err != nil {
			t.Fatal(err)
		}
		p := gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: f.URL})
		resumed := agent.New(agent.Config{Provider: p, Model: model, Tools: set, Searcher: searcher{}, Backoff: time.Millisecond})
		resumed.Reset(s.Messages())
		if err := resumed.Run(t.Context(), "And now?", func(agent.Event) {}); err != nil {
			t.Errorf("%s: %v", model, err)
		}
	}
}
