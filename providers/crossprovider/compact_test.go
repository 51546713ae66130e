package crossprovider

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/gemini"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
)

// TestCompactionKeepsFoundTools: after a compaction the tools found before
// it are still loaded, on every search form, so the next turn calls one
// with no new search and no request is rejected; what is sent is shorter,
// and the requests after the compaction share their prefix up to the
// found tools' search pair.
func TestCompactionKeepsFoundTools(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		pick   func(w *world) agent.Provider
		model  string
		search agent.SearchMode
		// call is the model's action when it calls a found tool.
		call string
	}{
		{"anthropic native", func(w *world) agent.Provider { return w.anthropic }, sonnet, agent.SearchNative, actCallDirect},
		{"anthropic client", func(w *world) agent.Provider { return w.anthropic }, sonnet, agent.SearchClient, actCallDirect},
		{"anthropic without native search", func(w *world) agent.Provider { return w.anthropic }, opus41, agent.SearchNative, actCallWrapped},
		{"openai hosted", func(w *world) agent.Provider { return w.responses }, gpt54, agent.SearchNative, actCallDirect},
		{"openai client tool_search", func(w *world) agent.Provider { return w.responses }, gpt54, agent.SearchClient, actCallDirect},
		{"openai functions", func(w *world) agent.Provider { return w.responses }, gpt41, agent.SearchNative, actCallWrapped},
		{"chat completions", func(w *world) agent.Provider { return w.chatP }, chatTest, agent.SearchNative, actCallWrapped},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			_ = w.s.Override(func(turn *agent.TurnContext) { turn.Search = tc.search })
			p := tc.pick(w)
			first := w.turn(p, tc.model, "What is the weather in Paris?")
			if !slices.ContainsFunc(first.kinds(), func(k string) bool { return k == actSearchNative || k == actSearchClient }) {
				t.Fatalf("the first turn did not search: %v", first.actions)
			}
			w.turn(p, tc.model, "Hello there")
			w.turn(p, tc.model, "And the stock price of ACME?")
			last := w.steps[len(w.steps)-1].reqs
			beforeBody := last[len(last)-1].body

			var evs []agent.Event
			c, err := w.s.Compact(t.Context(), "", func(e agent.Event) { evs = append(evs, e) })
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"weather_lookup", "stock_price"} {
				if !slices.Contains(c.Found, want) {
					t.Errorf("found tools %v, want %s among them", c.Found, want)
				}
			}
			if c.Summary == "" || c.After >= c.Before || c.Usage.OutputTokens == 0 && c.Usage.InputTokens == 0 {
				t.Errorf("compaction %+v: want a summary, fewer tokens after than before, and the summary request's usage", c)
			}
			if !slices.ContainsFunc(evs, func(e agent.Event) bool { return e.Type == agent.EventCompacted && e.Compaction != nil }) {
				t.Errorf("no compacted event among %v", evs)
			}
			if n := len(w.s.Messages()); n != c.Boundary {
				t.Errorf("history has %d messages, the boundary is %d: the history must keep every message", n, c.Boundary)
			}

			after := w.turn(p, tc.model, "What is the weather in Rome?")
			w.wantKinds(after, tc.call, actAnswer)
			w.wantAnswer("weather_lookup ran with")
			body1 := after.reqs[0].body
			if len(body1) >= len(beforeBody) {
				t.Errorf("the first request after compaction is %d bytes, not shorter than the last before it (%d)", len(body1), len(beforeBody))
			}
			again := w.turn(p, tc.model, "Stock price of XYZ?")
			w.wantKinds(again, tc.call, actAnswer)
			body2 := again.reqs[0].body
			pair := bytes.LastIndex(body1, []byte("call_compact_1"))
			if pair < 0 {
				t.Fatalf("the first request after compaction has no compaction search pair:\n%s", clip(string(body1)))
			}
			if common := commonPrefix(body1, body2); common <= pair {
				t.Errorf("requests after compaction share %d bytes, not past the search pair (byte %d):\n%s\n%s", common, pair, clip(string(body1[common:])), clip(string(body2[common:])))
			}
			// A second compaction summarises the first summary and what came
			// after it; the tools found before the first stay found.
			c2, err := w.s.Compact(t.Context(), "what the user planned", nil)
			if err != nil {
				t.Fatal(err)
			}
			if c2.Seq != 2 || !slices.Contains(c2.Found, "weather_lookup") {
				t.Errorf("second compaction %+v: want seq 2 and weather_lookup still found", c2)
			}
			third := w.turn(p, tc.model, "Weather in Oslo?")
			w.wantKinds(third, tc.call, actAnswer)
			if body := third.reqs[0].body; bytes.Contains(body, []byte("call_compact_1")) || !bytes.Contains(body, []byte("call_compact_2")) {
				t.Errorf("after the second compaction the request must carry its pair only:\n%s", clip(string(body)))
			}
			w.checkAll()
		})
	}
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Gemini and the cloud platforms (Vertex and Bedrock speak Anthropic's
// Messages, Azure OpenAI's Responses) take the compacted form too: the
// scripted model calls the tool found before the compaction without a
// search, and no fake rejects a request.
func TestCompactionOnGemini(t *testing.T) {
	t.Parallel()
	set := catalog(t)
	gm := geminitest.NewServer(t)
	gm.Script = geminitest.NewScript(
		geminitest.Turn{Search: "weather", Call: "$found", Input: map[string]any{"city": "Oslo"}}, geminitest.Turn{Text: "sunny"},
		geminitest.Turn{Text: "The user asked for the weather in Oslo; weather_lookup said sunny."},
		geminitest.Turn{Call: "weather_lookup", Input: map[string]any{"city": "Bergen"}}, geminitest.Turn{Text: "rainy"})
	s := agent.New(agent.Config{Provider: gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: gm.URL}), Model: "gemini-3-pro-preview",
		Tools: set, Searcher: wordSearcher{set}, Backoff: time.Millisecond})
	if err := s.Run(t.Context(), "Weather in Oslo?", func(agent.Event) {}); err != nil {
		t.Fatal(err)
	}
	c, err := s.Compact(t.Context(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.Found, "weather_lookup") {
		t.Fatalf("found %v", c.Found)
	}
	var failed []string
	if err := s.Run(t.Context(), "And Bergen?", func(e agent.Event) {
		if e.Type == agent.EventToolFinished && e.Tool.IsError {
			failed = append(failed, e.Tool.Result)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(failed) > 0 {
		t.Errorf("tool calls failed: %v", failed)
	}
	for _, r := range gm.Rejected() {
		t.Errorf("rejected: %s", r.Rejection)
	}
	reqs := gm.Requests()
	if body := reqs[len(reqs)-2].Body; !bytes.Contains(body, []byte("select:weather_lookup")) || !bytes.Contains(body, []byte("weather in Oslo; weather_lookup said sunny")) {
		t.Errorf("the request after compaction is not the compacted form:\n%s", clip(string(body)))
	}
	if !strings.Contains(s.Messages()[len(s.Messages())-1].Text(), "rainy") {
		t.Errorf("last answer %q", s.Messages()[len(s.Messages())-1].Text())
	}
}
