package agent_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
)

// TestStreamCutBeforeAnyEventIsRetried: a stream its connection ended
// before any event is sent again (nothing of it reached the user); one cut
// after an event, by a bad event, or by the provider's own error event is
// not.
func TestStreamCutBeforeAnyEventIsRetried(t *testing.T) {
	cutBy := func(cause error, streamed bool) func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error) {
		return func(_ *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
			m := agent.Message{Role: agent.RoleAssistant, Interrupted: true}
			if streamed {
				emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: "par"})
				m.Parts = []agent.Part{agent.TextPart("par")}
			}
			return &agent.Response{Message: m}, fmt.Errorf("x: stream was cut: %w", cause)
		}
	}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	badEvent := &json.SyntaxError{}
	for _, c := range []struct {
		name     string
		first    func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error)
		requests int
		retried  bool
	}{
		{"EOF before any event", cutBy(io.ErrUnexpectedEOF, false), 2, true},
		{"connection reset before any event", cutBy(reset, false), 2, true},
		{"EOF after text streamed", cutBy(io.ErrUnexpectedEOF, true), 1, false},
		{"bad event before any event", cutBy(badEvent, false), 1, false},
		{"error event before any event", cutBy(&agent.APIError{Provider: "x", Status: 400, Type: "invalid_request_error"}, false), 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){c.first, answer(agent.TextPart("hi"))}}
			s := agent.New(agent.Config{Provider: p, Backoff: time.Millisecond})
			evs, err := collect(t, s, "go")
			if len(p.reqs) != c.requests {
				t.Fatalf("requests = %d, want %d (err %v)", len(p.reqs), c.requests, err)
			}
			if !c.retried {
				if !errors.Is(err, agent.ErrStreamCut) && !errors.Is(err, agent.ErrBadRequest) {
					t.Fatalf("err = %v, want the cut", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			warned := false
			for _, e := range evs {
				warned = warned || e.Type == agent.EventWarning
			}
			if h := s.Messages(); !warned || len(h) != 2 || h[1].Interrupted || h[1].Text() != "hi" {
				t.Errorf("warned = %v history = %+v", warned, h)
			}
		})
	}
}
