package gemini_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/gemini"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	"github.com/agent-dev/agent/tools"
)

func readFileSet(t *testing.T) *tools.Set {
	t.Helper()
	s := tools.NewSet()
	if err := s.Add(nil, tools.Tool{Name: "read_file", Description: "Read a file",
		Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		Exec: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
			return tools.Result{Text: "content of " + string(args)}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	return s
}

// CallIDs runs two turns that each call read_file on a fake whose ids are
// left out or repeat (every answer numbers its calls from call_1) or are
// unique, and checks that the session's call ids are all distinct while
// every function response sent to Gemini carries the id Gemini gave its
// call (the fake's rule), or none when it gave none.
func TestCallIDsUniqueInSessionOriginalOnWire(t *testing.T) {
	for _, c := range []struct {
		name  string
		mode  geminitest.IDMode
		model string
		wire  []string // the ids of the last request's function responses
	}{
		{"repeated", geminitest.IDsPerResponse, "gemini-3-pro-preview", []string{"call_1", "call_1"}},
		{"repeated 2.5", geminitest.IDsPerResponse, "gemini-2.5-flash", []string{"call_1", "call_1"}},
		{"none", geminitest.IDsNone, "gemini-3-pro-preview", []string{"", ""}},
		{"unique", geminitest.IDsDefault, "gemini-3-pro-preview", []string{"call_1", "call_2"}},
	} {
		for _, noStream := range []bool{false, true} {
			f := geminitest.NewServer(t)
			f.CallIDs = c.mode
			f.Script = geminitest.NewScript(
				geminitest.Turn{Call: "read_file", Input: map[string]any{"path": "a"}},
				geminitest.Turn{Text: "Read a."},
				geminitest.Turn{Call: "read_file", Input: map[string]any{"path": "b"}},
				geminitest.Turn{Text: "Read b."})
			p := gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: f.URL})
			s := agent.New(agent.Config{Provider: p, Model: c.model, Tools: readFileSet(t), NoStream: noStream, Backoff: time.Millisecond})
			var started []string
			for _, prompt := range []string{"read a", "read b"} {
				if err := s.Run(t.Context(), prompt, func(e agent.Event) {
					if e.Type == agent.EventToolStarted {
						started = append(started, e.Tool.ID)
					}
				}); err != nil {
					t.Fatalf("%s stream=%v: %v", c.name, !noStream, err)
				}
			}
			if rej := f.Rejected(); len(rej) != 0 {
				t.Fatalf("%s stream=%v: rejected: %s", c.name, !noStream, rej[0].Rejection)
			}
			var ids []string
			seen := map[string]bool{}
			for _, m := range s.Messages() {
				for _, pt := range m.Parts {
					if pt.ToolCall != nil {
						ids = append(ids, pt.ToolCall.ID)
						if seen[pt.ToolCall.ID] || pt.ToolCall.ID == "" {
							t.Errorf("%s stream=%v: call id %q repeated or empty in the session: %v", c.name, !noStream, pt.ToolCall.ID, ids)
						}
						seen[pt.ToolCall.ID] = true
					}
				}
			}
			if len(ids) != 2 || strings.Join(started, ",") != strings.Join(ids, ",") {
				t.Errorf("%s stream=%v: calls %v, tool events %v", c.name, !noStream, ids, started)
			}
			reqs := f.Requests()
			if got := responseIDs(t, reqs[len(reqs)-1].Body); strings.Join(got, ",") != strings.Join(c.wire, ",") {
				t.Errorf("%s stream=%v: function response ids on the wire %q, want %q", c.name, !noStream, got, c.wire)
			}
		}
	}
}

// responseIDs lists the ids of a request's function responses.
func responseIDs(t *testing.T, body []byte) []string {
	t.Helper()
	var b struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					ID string `json:"id"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range b.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				out = append(out, p.FunctionResponse.ID)
			}
		}
	}
	return out
}
