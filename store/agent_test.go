package store

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools"
)

// scriptProvider answers from a script and records every request's history.
type scriptProvider struct {
	mu    sync.Mutex
	steps []agent.Message
	seen  [][]agent.Message
}

var _ agent.Provider = (*scriptProvider)(nil)

func (p *scriptProvider) Name() string                   { return "fake" }
func (p *scriptProvider) API() string                    { return "v1" }
func (p *scriptProvider) NativeSearch(model string) bool { return true }

func (p *scriptProvider) Send(ctx context.Context, req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, req.Messages)
	if len(p.steps) == 0 {
		return nil, fmt.Errorf("script exhausted")
	}
	m := p.steps[0]
	p.steps = p.steps[1:]
	for _, r := range m.Text() {
		emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: string(r)})
	}
	return &agent.Response{Message: m, ToolsHash: "hash-1", Resolved: agent.SearchNative,
		Usage: agent.Usage{InputTokens: 100, OutputTokens: 10}}, nil
}

// The store behind the real agent loop: every message the loop appends is
// stored, and a resumed session sends exactly the history it had.
func TestAgentLoopThroughStore(t *testing.T) {
	ctx := t.Context()
	d, _ := openTest(t)
	set := tools.NewSet()
	if err := set.Add(nil, tools.Tool{Name: "echo", Description: "echo", Schema: json.RawMessage(`{"type":"object"}`),
		Exec: func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
			return tools.Result{Text: "echoed " + string(args)}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	raw := func(s string) agent.Part { return agent.RawPart("fake", "v1", json.RawMessage(s)) }
	p := &scriptProvider{steps: []agent.Message{
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Let me echo."),
			agent.ToolCallPart(agent.ToolCall{ID: "c1", Name: "echo", Input: json.RawMessage(`{"x": 1}`)}),
			raw(`[{"t":"text","v":"Let me echo."}, {"t":"call"}]`)}},
		// The reasoning the user saw is stored and read back (#27).
		{Role: agent.RoleAssistant, Parts: []agent.Part{{Type: agent.PartReasoning, Text: "Echo answered."}, agent.TextPart("Done."), raw(`[{"t":"text","v":"Done."}]`)}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Again."), raw(`[{"t":"text","v":"Again."}]`)}},
	}}
	st := create(t, d, "/w")
	sess := agent.New(agent.Config{ID: st.ID(), Provider: p, Model: "m", Tools: set, Store: st, PartialEvery: 1})
	if err := sess.Run(ctx, "please echo", func(agent.Event) {}); err != nil {
		t.Fatal(err)
	}
	live := sess.Messages()
	if len(live) != 4 {
		t.Fatalf("live history has %d messages", len(live))
	}
	st.Close()

	st2, err := d.OpenSession(ctx, st.ID()[:5])
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	hist, err := st2.LoadRepaired(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(hist, live) {
		t.Fatalf("stored history differs from the live one:\n%+v\n%+v", hist, live)
	}
	if h, _ := st2.LastToolsHash(ctx); h != "hash-1" {
		t.Fatalf("tools hash = %q", h)
	}
	resumed := agent.New(agent.Config{ID: st2.ID(), Provider: p, Model: "m", Tools: set, Store: st2})
	resumed.Reset(hist)
	if err := resumed.Run(ctx, "again", func(agent.Event) {}); err != nil {
		t.Fatal(err)
	}
	sent := p.seen[len(p.seen)-1]
	if !reflect.DeepEqual(sent[:4], live) {
		t.Fatal("the resumed request does not carry the stored history as it was")
	}
	e, _ := d.Export(ctx, st2.ID())
	if len(e.Messages) != 6 || len(e.Requests) != 3 || e.Session.Title != "please echo" {
		t.Fatalf("export: %d messages, %d requests, title %q", len(e.Messages), len(e.Requests), e.Session.Title)
	}
}
