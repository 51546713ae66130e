package cmd

import (
	"context"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tui"
)

var (
	_ tui.Compacter     = (*tuiBackend)(nil)
	_ tui.AgentSwitcher = (*tuiBackend)(nil)
)

// Compact is /compact [FOCUS]: the model summarises the conversation so far.
func (b *tuiBackend) Compact(ctx context.Context, focus string) (*agent.Compaction, error) {
	return b.a.Compact(ctx, focus)
}

// Agents lists the profiles for /agent.
func (b *tuiBackend) Agents() ([]tui.AgentInfo, error) {
	set := b.a.Settings().Profiles()
	current := b.a.Settings().Agent
	var out []tui.AgentInfo
	for _, p := range set.List() {
		out = append(out, tui.AgentInfo{Name: p.Name, Description: p.Description, Source: p.Source, Current: p.Name == current})
	}
	if len(set.Errors) > 0 {
		return out, set.Errors[0]
	}
	return out, nil
}

// SetAgent is /agent NAME (see app.SetAgent).
func (b *tuiBackend) SetAgent(name string) (string, error) { return b.a.SetAgent(name) }
