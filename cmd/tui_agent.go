package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tui"
)

var (
	_ tui.Compacter     = (*tuiBackend)(nil)
	_ tui.AgentSwitcher = (*tuiBackend)(nil)
)

// Compact is /compact [FOCUS]: the model summarises the conversation so far.
func (b *tuiBackend) Compact(ctx context.Context, focus string) (*agent.Compaction, error) {
	s := b.rt.Session
	c, err := s.Compact(ctx, focus, nil)
	if c != nil {
		b.spent(s.Provider.Name(), s.Model, c.Usage)
	}
	return c, err
}

// Agents lists the profiles for /agent.
func (b *tuiBackend) Agents() ([]tui.AgentInfo, error) {
	set := agentProfiles(b.g)
	var out []tui.AgentInfo
	for _, p := range set.List() {
		out = append(out, tui.AgentInfo{Name: p.Name, Description: p.Description, Source: p.Source, Current: p.Name == b.g.Agent})
	}
	if len(set.Errors) > 0 {
		return out, set.Errors[0]
	}
	return out, nil
}

// SetAgent is /agent NAME: the profile's model, prompt, search mode,
// limits, provider tools, approvals and tool list apply from the next
// request on; the conversation is kept, as with /model.
func (b *tuiBackend) SetAgent(name string) (string, error) {
	g := b.g
	p, err := agentProfiles(g).Find(strings.TrimSpace(name))
	if err != nil {
		return "", err
	}
	if b.rt.Note != "" && b.rt.Session.Provider.Name() == "demo" {
		return "", fmt.Errorf("the demo runs its scripted model; run agent --agent %s without --demo", p.Name)
	}
	// A switch made now wins over the flags the program started with.
	flags := g.changed
	g.changed = nil
	applyProfile(g, p)
	g.changed = flags
	c := g.Config
	s := b.rt.Session
	var notes []string

	prov, model := b.rt.ProviderLabel, s.Model
	if p.Provider != "" {
		prov = p.Provider
	}
	if p.Model != "" {
		model = p.Model
	} else if prov != b.rt.ProviderLabel {
		_, def, err := newProvider(g, prov)
		if err != nil {
			return "", fmt.Errorf("switch to %s: %w", prov, err)
		}
		model = def
	}
	if err := b.useModel(prov, model); err != nil {
		return "", err
	}
	pts, err := parseProviderTools(c.ProviderTools)
	if err != nil {
		return "", err
	}
	_, needs, err := approvalPolicy(c.RequireApproval)
	if err != nil {
		return "", err
	}
	if p.System != "" {
		s.System = p.System
	}
	if p.Search != "" {
		mode, err := agent.ParseSearchMode(p.Search)
		if err != nil {
			return "", err
		}
		s.Search = mode
	}
	if p.MaxTokens > 0 {
		s.MaxTokens = p.MaxTokens
	}
	if p.Effort != "" {
		s.Effort = p.Effort
	}
	if p.FallbackModel != "" {
		s.Fallback, s.FallbackModel = s.Provider, p.FallbackModel
	}
	if len(p.ProviderTools) > 0 {
		s.ProviderTools = pts
	}
	s.NeedsApproval = needs

	// The tool list filters the servers' tools again; deferral follows the
	// profile's defer setting.
	s.Tools.SetPolicy(toolPolicy(g))
	if b.rt.MCP != nil {
		if err := b.rt.MCP.Register(s.Tools, false); err != nil {
			return "", err
		}
	}
	for _, t := range s.Tools.All() {
		switch {
		case len(p.DeferTools) > 0:
			s.Tools.SetDeferred(t.Name, p.Defers(t.Name, t.Server) || t.Orig != "" && p.Defers(t.Orig, t.Server))
		case p.Defer == "true" && t.Server != "":
			s.Tools.SetDeferred(t.Name, true)
		case p.Defer == "false":
			s.Tools.SetDeferred(t.Name, false)
		}
	}
	if p.Defer == "auto" {
		b.rt.applyAutoDefer(g, s.Model)
	}
	connected := map[string]bool{}
	for _, t := range s.Tools.All() {
		connected[t.Server] = true
	}
	for _, srv := range p.MCP {
		if !connected[srv] {
			notes = append(notes, fmt.Sprintf("server %s is not connected in this session: start agent --agent %s to connect it", srv, p.Name))
		}
	}
	if p.Theme != "" {
		notes = append(notes, "the theme applies at the next start")
	}
	notes = append(notes, "the tools array may change, so the next request reads the prompt without the cache once")

	if b.rt.Store != nil {
		meta := b.rt.Store.Meta()
		meta.Provider, meta.API, meta.Model = b.rt.ProviderLabel, s.Provider.API(), s.Model
		st := &meta.Settings
		st.Agent, st.System, st.Search, st.MaxTokens, st.ProviderTools, st.FallbackModel = p.Name, s.System, s.Search, s.MaxTokens, s.ProviderTools, s.FallbackModel
		if err := b.rt.Store.UpdateMeta(context.Background(), meta); err != nil {
			return "", err
		}
	}
	return strings.Join(notes, "\n"), nil
}
