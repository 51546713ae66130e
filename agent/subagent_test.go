package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools"
)

// A tool that runs a child session (as the app's run_agent does) draws the
// child's requests from the turn's step budget, and its events reach the
// turn's stream through CallEmitter, in order with the turn's own.
func TestChildSessionSharesTheTurnsBudgetAndStream(t *testing.T) {
	loop := func(n int) []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error) {
		var turns []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error)
		for range n {
			turns = append(turns, answer(call("k", "a", `{"x":1}`)))
		}
		return turns
	}
	childSet := tools.NewSet()
	_ = childSet.Add(nil, echoTool("a", false, nil))
	childProv := &scripted{turns: loop(10)} // a child that would go on calling
	var childErr error
	var forwarded int
	runChild := func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		id, emit, ok := agent.CallEmitter(ctx)
		if !ok || id != "p1" {
			t.Errorf("CallEmitter in a call: %q, %v", id, ok)
		}
		child := agent.New(agent.Config{Provider: childProv, Tools: childSet, MaxSteps: 25})
		childErr = child.Run(ctx, "task", func(e agent.Event) {
			forwarded++
			emit(agent.Event{Type: agent.EventSubagentEvent, Subagent: &agent.SubagentEvent{ID: id, Agent: "kid", Event: &e}})
		})
		return tools.Result{Text: "child done"}, nil
	}
	set := tools.NewSet()
	_ = set.Add(nil, tools.Tool{Name: "run_agent", Description: "runs a child", Exec: runChild})
	parent := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
		answer(call("p1", "run_agent", `{}`)), answer(agent.TextPart("never")),
	}}
	s := agent.New(agent.Config{Provider: parent, Tools: set, MaxSteps: 4})
	evs, err := collect(t, s, "go")
	// The parent's first request took one step: the child got three and
	// was stopped there; the parent's next request finds the budget spent.
	if n := len(childProv.reqs); n != 3 {
		t.Errorf("the child made %d requests, want 3 (4 steps less the parent's 1)", n)
	}
	if childErr == nil || !strings.Contains(childErr.Error(), "step budget of 4 requests spent by this turn and its subagents") {
		t.Errorf("child: %v", childErr)
	}
	if err == nil || agent.KindOf(err) != agent.ErrBudgetSpent || len(parent.reqs) != 1 {
		t.Errorf("parent: %v after %d requests", err, len(parent.reqs))
	}
	got := 0
	for _, e := range evs {
		if e.Type == agent.EventSubagentEvent {
			got++
		}
	}
	if got != forwarded || got == 0 {
		t.Errorf("%d child events reached the parent's stream, %d were sent", got, forwarded)
	}
	if _, _, ok := agent.CallEmitter(context.Background()); ok {
		t.Error("CallEmitter outside a call")
	}
}
