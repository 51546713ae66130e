package crossprovider

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/gemini"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	"github.com/agent-dev/agent/tools"
)

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) []byte {
	b, _ := json.Marshal(s)
	return b[1 : len(b)-1]
}

// The first request of every deferred mode carries the directory of what
// waits behind the search (in the system prompt where the search tool has
// no description, else in its description), and every later request of the
// conversation carries the same bytes. OpenAI's hosted search is the
// exception: its namespaces carry each server's description.
func TestDirectoryInEveryDeferredMode(t *testing.T) {
	for _, c := range []struct {
		name   string
		model  string
		search agent.SearchMode
		pick   func(w *world) agent.Provider
		want   bool
	}{
		{"anthropic native", sonnet, agent.SearchNative, func(w *world) agent.Provider { return w.anthropic }, true},
		{"anthropic client", sonnet, agent.SearchClient, func(w *world) agent.Provider { return w.anthropic }, true},
		{"anthropic function form", opus41, agent.SearchClient, func(w *world) agent.Provider { return w.anthropic }, true},
		{"responses client", gpt54, agent.SearchClient, func(w *world) agent.Provider { return w.responses }, true},
		{"responses function form", gpt41, agent.SearchNative, func(w *world) agent.Provider { return w.responses }, true},
		{"responses hosted", gpt54, agent.SearchNative, func(w *world) agent.Provider { return w.responses }, false},
		{"chat completions", "m", agent.SearchNative, func(w *world) agent.Provider { return w.chatP }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			_ = w.s.Override(func(turn *agent.TurnContext) { turn.Search = c.search })
			dir := tools.Directory(w.s.Tools().Deferred())
			if dir == "" {
				t.Fatal("no directory for the test catalog")
			}
			st := w.turn(c.pick(w), c.model, "What is the weather in Oslo?")
			if len(st.reqs) < 2 {
				t.Fatalf("%d requests, want a search and more", len(st.reqs))
			}
			for i, r := range st.reqs {
				if got := bytes.Count(r.body, jsonText(dir)); (got == 1) != c.want {
					t.Errorf("request %d holds the directory %d times, want %v:\n%s", i+1, got, c.want, clip(string(r.body)))
				}
			}
		})
	}
}

func TestDirectoryOnGemini(t *testing.T) {
	set := catalog(t)
	gm := geminitest.NewServer(t)
	gm.Script = geminitest.NewScript(geminitest.Turn{Search: "weather", Call: "$found", Input: map[string]any{"city": "Oslo"}}, geminitest.Turn{Text: "sunny"})
	s := agent.New(agent.Config{Provider: gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: gm.URL}), Model: "gemini-3-pro-preview",
		System: "You are a test.", Tools: set, Searcher: wordSearcher{set}, Backoff: time.Millisecond})
	if err := s.Run(t.Context(), "Weather in Oslo?", func(agent.Event) {}); err != nil {
		t.Fatal(err)
	}
	dir := jsonText(tools.Directory(set.Deferred()))
	reqs := gm.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs {
		var b struct {
			SystemInstruction json.RawMessage `json:"systemInstruction"`
		}
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b.SystemInstruction, dir) {
			t.Errorf("request %d: the system instruction lacks the directory: %s", i+1, b.SystemInstruction)
		}
	}
}

type useLog struct {
	mu   sync.Mutex
	uses []agent.ToolUse
}

func (l *useLog) Learn(_ context.Context, u agent.ToolUse) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.uses = append(l.uses, u)
}

// A provider's own search and the call of a tool it found are what search
// learns from, as client searches are: the find with the search's query
// where the provider reports one (Anthropic), else with the user's prompt
// (OpenAI's hosted search loads namespaces by path); the call always with
// the user's prompt.
func TestLearningFromNativeSearch(t *testing.T) {
	for _, c := range []struct {
		name  string
		model string
		pick  func(w *world) agent.Provider
	}{
		{"anthropic", sonnet, func(w *world) agent.Provider { return w.anthropic }},
		{"responses hosted", gpt54, func(w *world) agent.Provider { return w.responses }},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			log := &useLog{}
			_ = w.s.Override(func(turn *agent.TurnContext) { turn.Learner = log })
			w.turn(c.pick(w), c.model, "What is the weather in Oslo?")
			var found, called *agent.ToolUse
			for i, u := range log.uses {
				if u.Called {
					called = &log.uses[i]
				} else if found == nil {
					found = &log.uses[i]
				}
			}
			if found == nil || called == nil {
				t.Fatalf("learned %+v, want a provider search's find and the call", log.uses)
			}
			// A call votes with the user's request, never with the
			// search's words (#26, #28: learning comes from the user).
			if found.Where != agent.WhereProvider || found.Query == "" || called.Query != "What is the weather in Oslo?" ||
				len(called.Tools) != 1 || called.Tools[0].Name != "weather_lookup" || called.Tools[0].Server != "weather" {
				t.Errorf("found %+v, called %+v", *found, *called)
			}
		})
	}
}
