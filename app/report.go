package app

import (
	"context"
	"sort"

	"github.com/agent-dev/agent/agent"
	mcptools "github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/tokens"
)

// ToolRow is one line of agent tools.
type ToolRow struct {
	Name     string `json:"name"`
	Server   string `json:"server"`
	Deferred bool   `json:"deferred"`
	Tokens   int    `json:"tokens"`
	// Annotations are the server's hints ("read-only, idempotent").
	Annotations string `json:"annotations,omitempty"`
}

// ToolsReport is what agent tools prints: every tool of the MCP servers
// this run would connect, active or deferred, with its token cost.
type ToolsReport struct {
	Provider string `json:"provider"`
	// ProviderError says why the provider cannot run (a missing key):
	// the report is still made, as the provider would send the tools.
	ProviderError string          `json:"provider_error,omitempty"`
	Model         string          `json:"model"`
	Search        string          `json:"search_mode"`
	Resolved      string          `json:"resolved_mode"`
	Active        int             `json:"active"`
	Deferred      int             `json:"deferred"`
	Servers       []ServerTokens  `json:"servers"`
	Tools         []ToolRow       `json:"tools"`
	Sent          tokens.Estimate `json:"estimate"`
	// Usage is what tool search learned from use: how often each tool was
	// found and then called.
	Usage    []ToolUsage `json:"usage,omitempty"`
	Warnings []string    `json:"warnings,omitempty"`
	// Quarantined are tools left out for an invalid input schema.
	Quarantined []QuarantinedRow `json:"quarantined,omitempty"`
	// Hidden are tools a server lists that are not offered (a tool that
	// runs only as an MCP task), with why; same shape as Quarantined.
	Hidden []QuarantinedRow `json:"hidden,omitempty"`
}

// QuarantinedRow is a tool left out for an invalid input schema.
type QuarantinedRow struct {
	Name    string `json:"name"`
	Server  string `json:"server"`
	Problem string `json:"problem"`
}

// ServerTokens is one server's share of the tools.
type ServerTokens struct {
	Server   string `json:"server"`
	Tools    int    `json:"tools"`
	Deferred int    `json:"deferred"`
	Tokens   int    `json:"tokens"`
	// Cached: the tools are the server's cached catalog; the server was
	// not started (listing.go).
	Cached bool `json:"cached,omitempty"`
}

// BuildToolsReport reports the tools of the run's MCP servers (from their
// cached catalogs, or connecting them: listing.go) as the current
// provider, model and search mode would send them.
func BuildToolsReport(ctx context.Context, settings Settings, o Options) (*ToolsReport, error) {
	a, perr, err := Tools(ctx, settings, o)
	if err != nil {
		a.Close()
		return nil, err
	}
	defer a.Close()
	s := a.Session()
	set, tc := s.Tools(), s.TurnContext()
	rep := &ToolsReport{Model: tc.Model, Search: string(tc.Search), Warnings: append(a.Warnings(), a.Notices()...)}
	if perr == nil {
		rep.Provider = settings.Provider
		rep.Resolved = string(agent.ResolveSearch(tc.Provider, s.BuildRequest()))
	} else {
		rep.Provider, rep.ProviderError = settings.Provider, perr.Error()
		rep.Resolved = string(tc.Search)
	}
	a.CountTokens()
	per := map[string]*ServerTokens{}
	for _, t := range set.All() {
		d := set.IsDeferred(t.Name)
		row := ToolRow{Name: t.Name, Server: t.Server, Deferred: d, Tokens: t.Cost(), Annotations: t.Annotations.String()}
		rep.Tools = append(rep.Tools, row)
		st := per[t.Server]
		if st == nil {
			st = &ServerTokens{Server: t.Server}
			per[t.Server] = st
		}
		st.Tools++
		st.Tokens += row.Tokens
		if d {
			st.Deferred++
			rep.Deferred++
		} else {
			rep.Active++
		}
	}
	if a.mcp != nil {
		for _, st := range a.mcp.Status() {
			if p := per[st.Name]; p != nil {
				p.Cached = st.Cached
			}
		}
	}
	for _, st := range per {
		rep.Servers = append(rep.Servers, *st)
	}
	sort.Slice(rep.Servers, func(i, j int) bool { return rep.Servers[i].Server < rep.Servers[j].Server })
	for _, q := range set.Quarantined() {
		rep.Quarantined = append(rep.Quarantined, QuarantinedRow{q.Tool.Name, q.Tool.Server, q.Problem})
	}
	if a.mcp != nil {
		for _, st := range a.mcp.Status() {
			for _, h := range st.Hidden {
				rep.Hidden = append(rep.Hidden, QuarantinedRow{mcptools.ToolName(st.Name, h.Name), st.Name, h.Reason})
			}
		}
	}
	rep.Sent = EstimateTokens(set, rep.Resolved)
	rep.Usage = UsageStats(ctx, settings)
	return rep, nil
}
