package agent_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// AnswerBegins is called once per request, after BeforeSend: at the
// answer's first event, or when the request ends without one (an answer
// with nothing streamed, a failed request).
func TestAnswerBeginsOncePerRequestAtTheFirstEvent(t *testing.T) {
	var log []string
	note := func(s string) { log = append(log, s) }
	streamed := func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
		note("send")
		emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: "a"})
		note("first event")
		emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: "b"})
		return &agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("ab")}}}, nil
	}
	silent := func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
		note("send")
		return &agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{call("c1", "x", `{}`)}}}, nil
	}
	failed := func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
		note("send")
		return nil, errors.New("refused")
	}
	for _, tc := range []struct {
		name  string
		turns []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error)
		want  []string
	}{
		{"streamed", []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){streamed},
			[]string{"before send", "send", "answer begins", "first event"}},
		{"nothing streamed, then streamed", []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){silent, streamed},
			[]string{"before send", "send", "answer begins", "before send", "send", "answer begins", "first event"}},
		{"failed", []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){failed},
			[]string{"before send", "send", "answer begins"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log = nil
			p := &scripted{turns: tc.turns}
			s := agent.New(agent.Config{Provider: p, Model: "m", Retries: -1,
				BeforeSend:   func() { note("before send") },
				AnswerBegins: func() { note("answer begins") },
			})
			_, _ = collect(t, s, "go")
			if !slices.Equal(log, tc.want) {
				t.Errorf("calls %q, want %q", log, tc.want)
			}
		})
	}
}
