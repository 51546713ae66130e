package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/permission"
)

// A call the permission check refuses (a hook, a deny rule) finishes with
// the decision on its event and a DeniedError, so a front end says
// "denied", not "failed"; a call that ran and failed carries neither.
func TestRefusedCallCarriesItsDecision(t *testing.T) {
	for _, tc := range []struct {
		name   string
		permit func(context.Context, permission.Call) permission.Decision
		failed bool // the tool ran and failed
		denied permission.Source
	}{
		{"hook", func(context.Context, permission.Call) permission.Decision {
			return permission.Decision{Behavior: permission.Deny, Source: permission.SourceHook, Reason: "weather lookups are off today"}
		}, false, permission.SourceHook},
		{"rule", func(context.Context, permission.Call) permission.Decision {
			return permission.Decision{Behavior: permission.Deny, Source: permission.SourceRule, Rule: "danger"}
		}, false, permission.SourceRule},
		{"allowed, failed", func(context.Context, permission.Call) permission.Decision {
			return permission.Decision{Behavior: permission.Allow}
		}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := tools.NewSet()
			_ = set.Add(nil, echoTool("danger", false, func(context.Context, json.RawMessage) (tools.Result, error) {
				return tools.Result{}, errors.New("boom")
			}))
			p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
				answer(call("1", "danger", `{"x":1}`)), answer(agent.TextPart("ok")),
			}}
			s := agent.New(agent.Config{Provider: p, Tools: set, Permit: tc.permit})
			var fin *agent.ToolEvent
			if err := s.Run(t.Context(), "go", func(e agent.Event) {
				if e.Type == agent.EventToolFinished {
					fin = e.Tool
				}
			}); err != nil {
				t.Fatal(err)
			}
			if fin == nil || !fin.IsError || !errors.Is(fin.Err, agent.ErrToolFailed) {
				t.Fatalf("finished %+v", fin)
			}
			var de *agent.DeniedError
			if got := errors.As(fin.Err, &de); got == tc.failed {
				t.Errorf("DeniedError %v, want %v", got, !tc.failed)
			}
			switch {
			case tc.failed && fin.Permission != nil:
				t.Errorf("a failed call carries a decision: %+v", fin.Permission)
			case !tc.failed && (fin.Permission == nil || fin.Permission.Behavior != permission.Deny || fin.Permission.Source != tc.denied):
				t.Errorf("decision %+v, want a deny from %s", fin.Permission, tc.denied)
			}
		})
	}
}
