package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// A change asked for during a turn is refused with ErrBusy and changes
// nothing: the turn's requests all go to the model it started with; the
// same change made after the turn applies to the next one.
func TestOverrideDuringTurnIsBusy(t *testing.T) {
	inTurn, release := make(chan struct{}), make(chan struct{})
	p := &scripted{}
	p.turns = append(p.turns,
		func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
			close(inTurn)
			<-release
			return answer(agent.TextPart("one"))(req, emit)
		},
		answer(agent.TextPart("two")))
	s := agent.New(agent.Config{Provider: p, Model: "first"})
	done := make(chan error, 1)
	go func() { _, err := collect(t, s, "hi"); done <- err }()
	<-inTurn

	err := s.Override(func(tc *agent.TurnContext) { tc.Model = "second" })
	if !errors.Is(err, agent.ErrBusy) || agent.KindOf(err) != agent.ErrBusy {
		t.Fatalf("Override during a turn: %v, want kind ErrBusy", err)
	}
	if _, cerr := s.Compact(context.Background(), "", nil); agent.KindOf(cerr) != agent.ErrBusy {
		t.Errorf("Compact during a turn: %v, want kind ErrBusy", cerr)
	}
	if _, model := s.Target(); model != "first" {
		t.Errorf("a refused change applied: model %q", model)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	if err := s.Override(func(tc *agent.TurnContext) { tc.Model = "second" }); err != nil {
		t.Fatalf("Override between turns: %v", err)
	}
	if _, err := collect(t, s, "again"); err != nil {
		t.Fatal(err)
	}
	if len(p.reqs) != 2 || p.reqs[0].Model != "first" || p.reqs[1].Model != "second" {
		t.Errorf("requests went to %v", []string{p.reqs[0].Model, p.reqs[len(p.reqs)-1].Model})
	}
}

// Override keeps New's defaults: a zero step budget is not "no steps".
func TestOverrideKeepsDefaults(t *testing.T) {
	s := agent.New(agent.Config{})
	_ = s.Override(func(tc *agent.TurnContext) { tc.MaxSteps = 0 })
	if tc := s.TurnContext(); tc.MaxSteps != 25 || tc.Retries != 4 {
		t.Errorf("defaults lost: %+v", tc)
	}
}
