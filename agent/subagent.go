package agent

import (
	"context"
	"sync/atomic"
)

// Subagents: a tool (the app's run_agent) may run a whole child session
// inside one call. The core knows nothing of profiles; it gives the call
// what a child needs from its parent's turn, through the call's context:
// the call's id and the turn's emit (the child's events and approvals go
// out in the parent's stream), and the turn's step budget, which the child
// draws from (max_steps holds for a turn with its subagents).

const (
	// EventSubagentStarted opens a child session run by a tool call;
	// EventSubagentEvent carries one of the child's own events;
	// EventSubagentFinished closes it with its answer. A child's approval
	// requests are not wrapped: they are approval_requested events whose
	// Tool.Agent names the child, answered like the parent's.
	EventSubagentStarted  EventType = "subagent_started"
	EventSubagentEvent    EventType = "subagent_event"
	EventSubagentFinished EventType = "subagent_finished"
)

// SubagentEvent describes a child session run by the tool call ID.
type SubagentEvent struct {
	ID        string `json:"id"` // the run_agent call's id
	Agent     string `json:"agent"`
	SessionID string `json:"session_id,omitempty"`
	Provider  string `json:"provider,omitempty"`
	Model     string `json:"model,omitempty"`
	Prompt    string `json:"prompt,omitempty"`
	// Event is the child's event, on subagent_event.
	Event *Event `json:"event,omitempty"`
	// On subagent_finished: the child's final answer, the one-line
	// summary of the tools it found and called, whether it failed, its
	// requests, tokens and cost (nil when a model it used has no price).
	Result   string   `json:"result,omitempty"`
	Summary  string   `json:"summary,omitempty"`
	IsError  bool     `json:"is_error,omitempty"`
	Error    string   `json:"error,omitempty"`
	Requests int      `json:"requests,omitempty"`
	Usage    *Usage   `json:"usage,omitempty"`
	CostUSD  *float64 `json:"cost_usd,omitempty"`
}

// stepBudget is a turn's max_steps, shared by the turn and the subagents
// its calls run: each provider request takes one step.
type stepBudget struct {
	max  int64
	used atomic.Int64
}

// take spends one step; false when the budget was already spent.
func (b *stepBudget) take() bool { return b.used.Add(1) <= b.max }

type budgetKey struct{}

type callKey struct{}

type callInfo struct {
	id   string
	emit func(Event)
}

// withBudget returns ctx carrying the turn's step budget: the parent's, when
// ctx is a tool call's context (a child draws from it), else a new one.
func withBudget(ctx context.Context, max int) (context.Context, *stepBudget) {
	if b, ok := ctx.Value(budgetKey{}).(*stepBudget); ok && b != nil {
		return ctx, b
	}
	b := &stepBudget{max: int64(max)}
	return context.WithValue(ctx, budgetKey{}, b), b
}

// CallEmitter is, inside a tool's executor, the id of the call and the
// emit of the turn that runs it: events a tool emits there go out in the
// turn's stream, in order with the turn's own. ok is false outside a call.
func CallEmitter(ctx context.Context) (id string, emit func(Event), ok bool) {
	c, ok := ctx.Value(callKey{}).(callInfo)
	if !ok || c.emit == nil {
		return "", nil, false
	}
	return c.id, c.emit, true
}

func withCall(ctx context.Context, id string, emit func(Event)) context.Context {
	return context.WithValue(ctx, callKey{}, callInfo{id: id, emit: emit})
}
