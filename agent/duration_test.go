package agent_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/permission"
)

// fakeClock is a clock that moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// A tool call's duration is the tool's own run, not the wait for the
// user's approval before it: a card said "✓ 12.0s" of a 40 ms call the user
// approved after 12 s. A call that never ran (denied) has none.
func TestToolDurationLeavesOutTheApprovalWait(t *testing.T) {
	for _, tc := range []struct {
		name  string
		allow bool
		want  time.Duration
	}{
		{"approved", true, 40 * time.Millisecond},
		{"denied", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{now: time.Date(2026, 12, 4, 23, 0, 0, 0, time.UTC)}
			set := tools.NewSet()
			_ = set.Add(nil, echoTool("write", false, func(context.Context, json.RawMessage) (tools.Result, error) {
				clock.advance(40 * time.Millisecond) // the tool's run
				return tools.Result{Text: "written"}, nil
			}))
			p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
				answer(call("1", "write", `{"x":1}`)), answer(agent.TextPart("done")),
			}}
			s := agent.New(agent.Config{Provider: p, Tools: set, Now: clock.Now,
				Permit: func(context.Context, permission.Call) permission.Decision {
					return permission.Decision{Behavior: permission.Ask}
				}})
			var fin *agent.ToolEvent
			err := s.Run(t.Context(), "go", func(e agent.Event) {
				switch e.Type {
				case agent.EventApproval:
					clock.advance(12 * time.Second) // the user reads the question
					s.Answer(e.Tool.ID, tc.allow)
				case agent.EventToolFinished:
					fin = e.Tool
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if fin == nil {
				t.Fatal("the call never finished")
			}
			if fin.Duration != tc.want {
				t.Errorf("duration %v, want %v (the tool's run)", fin.Duration, tc.want)
			}
		})
	}
}
