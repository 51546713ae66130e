package agent_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
)

func TestAPIErrorKinds(t *testing.T) {
	for _, tc := range []struct {
		err  *agent.APIError
		kind error
	}{
		{&agent.APIError{Status: 429}, agent.ErrRateLimited},
		{&agent.APIError{Status: 529}, agent.ErrOverloaded},
		{&agent.APIError{Status: 401}, agent.ErrAuth},
		{&agent.APIError{Status: 400, Type: "invalid_request_error"}, agent.ErrBadRequest},
		{&agent.APIError{Status: 504}, agent.ErrTimeout},
		{&agent.APIError{Type: "overloaded_error"}, agent.ErrOverloaded},
	} {
		if got := agent.KindOf(tc.err); got != tc.kind {
			t.Errorf("%+v: kind %v, want %v", tc.err, got, tc.kind)
		}
	}
	if agent.KindOf(errors.New("plain")) != nil {
		t.Error("a plain error has a kind")
	}
}

// A provider cut mid-stream ends the turn with ErrStreamCut; a cancelled
// turn with ErrCancelled (and context.Canceled); the budget with
// ErrBudgetSpent.
func TestTurnErrorKinds(t *testing.T) {
	cut := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
		func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
			emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: "half"})
			return &agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("half")}, Interrupted: true}}, errors.New("connection reset")
		},
	}}
	s := agent.New(agent.Config{Provider: cut})
	var evErr error
	err := s.Run(t.Context(), "go", func(e agent.Event) {
		if e.Type == agent.EventError {
			evErr = e.Err
		}
	})
	if !errors.Is(err, agent.ErrStreamCut) || !errors.Is(evErr, agent.ErrStreamCut) {
		t.Errorf("stream cut: %v / %v", err, evErr)
	}
	loop := &scripted{}
	for range 3 {
		loop.turns = append(loop.turns, answer(call("c", "missing", `{}`)))
	}
	s = agent.New(agent.Config{Provider: loop, MaxSteps: 2})
	if err := s.Run(t.Context(), "go", func(agent.Event) {}); !errors.Is(err, agent.ErrBudgetSpent) {
		t.Errorf("budget: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s = agent.New(agent.Config{Provider: &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
		func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error) { return nil, context.Canceled },
	}}})
	if err := s.Run(ctx, "go", func(agent.Event) {}); !errors.Is(err, agent.ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancel: %v", err)
	}
}

// The turn never waits for the reader: a reader that stops reading does
// not hold the session; once ctx is done the stream closes.
func TestSendDoesNotBlockOnAStoppedReader(t *testing.T) {
	p := &scripted{}
	for range 200 {
		p.turns = append(p.turns, answer(agent.TextPart("word")))
	}
	s := agent.New(agent.Config{Provider: p})
	ctx, cancel := context.WithCancel(t.Context())
	ch := s.Send(ctx, "go") // never read
	deadline := time.Now().Add(10 * time.Second)
	for len(s.Messages()) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the turn is held by its reader")
		}
		<-time.After(5 * time.Millisecond)
	}
	cancel()
	for range ch {
	}
}
