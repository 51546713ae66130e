package cmd

import (
	"context"
	"fmt"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools"
)

// buildRuntime wires a session from the resolved flags and config.
func buildRuntime(ctx context.Context, g *Globals, approver agent.Approver) (*runtime, error) {
	c := g.Config
	p, defModel, err := newProvider(g, c.Provider)
	if err != nil {
		return nil, err
	}
	model := c.Model
	if model == "" {
		model = defModel
	}
	mode, _ := agent.ParseSearchMode(c.Search)
	rt := &runtime{}
	s := &agent.Session{
		Provider: p, Model: model, System: c.System, Tools: tools.NewSet(), Search: mode,
		SearchAlgo: c.SearchAlgo, MaxSteps: c.MaxSteps, MaxTokens: c.MaxTokens, NoStream: g.NoStream,
		Approver: approver, NeedsApproval: approvalPolicy(c.RequireApproval),
	}
	rt.Session = s
	return rt, nil
}

func runTUI(ctx context.Context, g *Globals) error {
	return fmt.Errorf("the TUI is not wired yet")
}
