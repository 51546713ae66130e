package crossprovider

import (
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/gemini"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	"github.com/agent-dev/agent/providers/openairesponses"
	"github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

// Two turns on Gemini that each call read_file, with call ids Gemini
// repeats (every answer numbers its calls from call_1, as Vertex AI's
// can: google/adk-python#6761) or leaves out, then the session resumed on
// the Responses API and on Anthropic, then back on Gemini: every strict
// fake accepts every request and the session's call ids stay distinct.
func TestGeminiCallIDsThenOtherProviders(t *testing.T) {
	for _, mode := range []geminitest.IDMode{geminitest.IDsPerResponse, geminitest.IDsNone} {
		set := catalog(t)
		g := geminitest.NewServer(t)
		g.CallIDs = mode
		g.Script = geminitest.NewScript(
			geminitest.Turn{Call: "read_file", Input: map[string]any{"path": "a"}}, geminitest.Turn{Text: "Read a."},
			geminitest.Turn{Call: "read_file", Input: map[string]any{"path": "b"}}, geminitest.Turn{Text: "Read b."},
			geminitest.Turn{Call: "read_file", Input: map[string]any{"path": "e"}}, geminitest.Turn{Text: "Read e."})
		gp := gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: g.URL})
		s := agent.New(agent.Config{Provider: gp, Model: "gemini-3-pro-preview", Tools: set, Searcher: wordSearcher{set}, Backoff: time.Millisecond})
		for _, prompt := range []string{"read a", "read b"} {
			if err := s.Run(t.Context(), prompt, func(agent.Event) {}); err != nil {
				t.Fatalf("mode %d: gemini: %v", mode, err)
			}
		}

		resp := responsestest.NewServer(t)
		resp.Script(responsestest.Turn{responsestest.Call("read_file", `{"path":"c"}`)}, responsestest.Turn{responsestest.Text("Read c.")})
		ant := anthropictest.NewServer(t)
		ant.Script = anthropictest.NewScript(anthropictest.Turn{Call: "read_file", Input: map[string]any{"path": "d"}}, anthropictest.Turn{Text: "Read d."})
		msgs := s.Messages()
		for _, next := range []struct {
			p      agent.Provider
			model  string
			prompt string
		}{
			{openairesponses.New(openairesponses.Options{APIKey: responsestest.DefaultKey, BaseURL: resp.URL}), gpt54, "read c"},
			{anthropic.New(anthropic.Options{APIKey: anthropictest.DefaultAPIKey, BaseURL: ant.URL}), sonnet, "read d"},
			{gp, "gemini-3-pro-preview", "read e"},
		} {
			s := agent.New(agent.Config{Provider: next.p, Model: next.model, Tools: set, Searcher: wordSearcher{set}, Backoff: time.Millisecond})
			s.Reset(msgs)
			if err := s.Run(t.Context(), next.prompt, func(agent.Event) {}); err != nil {
				t.Fatalf("mode %d: %s after gemini: %v", mode, next.p.Name(), err)
			}
			msgs = s.Messages()
		}
		for _, rej := range [][]string{rejections(resp.Rejected()), antRejections(ant.Requests()), gemRejections(g.Rejected())} {
			if len(rej) > 0 {
				t.Errorf("mode %d: rejected: %v", mode, rej)
			}
		}
		seen := map[string]bool{}
		n := 0
		for _, m := range msgs {
			for _, pt := range m.Parts {
				if pt.ToolCall != nil {
					n++
					if seen[pt.ToolCall.ID] {
						t.Errorf("mode %d: call id %s twice in the session", mode, pt.ToolCall.ID)
					}
					seen[pt.ToolCall.ID] = true
				}
			}
		}
		if n != 5 {
			t.Errorf("mode %d: %d calls in the session, want 5", mode, n)
		}
	}
}

func rejections(rs []responsestest.Request) (out []string) {
	for _, r := range rs {
		out = append(out, r.Error)
	}
	return out
}

func antRejections(rs []*anthropictest.Request) (out []string) {
	for _, r := range rs {
		if r.Status >= 400 {
			out = append(out, string(r.Body))
		}
	}
	return out
}

func gemRejections(rs []*geminitest.Request) (out []string) {
	for _, r := range rs {
		out = append(out, r.Rejection)
	}
	return out
}
