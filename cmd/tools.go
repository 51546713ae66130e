package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/tools/tokens"
)

// toolRow is one line of agent tools.
type toolRow struct {
	Name     string `json:"name"`
	Server   string `json:"server"`
	Deferred bool   `json:"deferred"`
	Tokens   int    `json:"tokens"`
}

// toolsReport is what agent tools prints.
type toolsReport struct {
	Provider string          `json:"provider"`
	Model    string          `json:"model"`
	Search   string          `json:"search_mode"`
	Resolved string          `json:"resolved_mode"`
	Active   int             `json:"active"`
	Deferred int             `json:"deferred"`
	Servers  []serverTokens  `json:"servers"`
	Tools    []toolRow       `json:"tools"`
	Sent     tokens.Estimate `json:"estimate"`
	// Usage is what tool search learned from use: how often each tool was
	// found and then called.
	Usage    []app.ToolUsage `json:"usage,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	// Quarantined are tools left out for an invalid input schema.
	Quarantined []quarantinedRow `json:"quarantined,omitempty"`
}

type quarantinedRow struct {
	Name    string `json:"name"`
	Server  string `json:"server"`
	Problem string `json:"problem"`
}

type serverTokens struct {
	Server   string `json:"server"`
	Tools    int    `json:"tools"`
	Deferred int    `json:"deferred"`
	Tokens   int    `json:"tokens"`
}

func newToolsCmd(g *Globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "tools",
		Short: "List the active and deferred tools of the configured MCP servers, with their token cost",
		Long: `List every tool of the MCP servers this run would connect (--mcp NAME, or every configured
server), whether it is active or deferred, its estimated token cost (o200k), each server's total, and
what the current provider, model and search mode would send.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := buildToolsReport(cmd, g)
			if err != nil {
				return err
			}
			if asJSON {
				e := json.NewEncoder(g.Stdout)
				e.SetIndent("", "  ")
				return e.Encode(rep)
			}
			return writeToolsReport(g.Stdout, rep)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.AddCommand(newToolsSearchCmd(g), newToolsForgetCmd(g))
	return c
}

func buildToolsReport(cmd *cobra.Command, g *Globals) (*toolsReport, error) {
	settings, err := g.settings()
	if err != nil {
		return nil, err
	}
	a, perr, err := app.Tools(cmd.Context(), settings, app.Options{Getenv: g.Getenv, Version: versionString()})
	defer a.Close()
	if err != nil {
		return nil, err
	}
	s := a.Session()
	set := s.Tools
	rep := &toolsReport{Model: s.Model, Search: string(s.Search), Warnings: append(a.Warnings(), a.Notices()...)}
	if perr == nil {
		rep.Provider = settings.Provider
		rep.Resolved = string(agent.ResolveSearch(s.Provider, s.BuildRequest()))
	} else {
		rep.Provider = settings.Provider + " (not configured: " + perr.Error() + ")"
		rep.Resolved = string(s.Search)
	}
	per := map[string]*serverTokens{}
	for _, t := range set.All() {
		d := set.IsDeferred(t.Name)
		row := toolRow{Name: t.Name, Server: t.Server, Deferred: d, Tokens: t.Cost()}
		rep.Tools = append(rep.Tools, row)
		st := per[t.Server]
		if st == nil {
			st = &serverTokens{Server: t.Server}
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
	for _, st := range per {
		rep.Servers = append(rep.Servers, *st)
	}
	sort.Slice(rep.Servers, func(i, j int) bool { return rep.Servers[i].Server < rep.Servers[j].Server })
	for _, q := range set.Quarantined() {
		rep.Quarantined = append(rep.Quarantined, quarantinedRow{q.Tool.Name, q.Tool.Server, q.Problem})
	}
	rep.Sent = app.EstimateTokens(set, rep.Resolved)
	rep.Usage = app.UsageStats(cmd.Context(), settings)
	return rep, nil
}

func writeToolsReport(w io.Writer, rep *toolsReport) error {
	sw := sanitize.NewWriter(w) // tool and server names, warnings come from outside
	defer sw.Flush()
	w = sw
	for _, warn := range rep.Warnings {
		fmt.Fprintln(w, "warning: "+warn)
	}
	// The model is empty when the provider is not configured.
	fmt.Fprintf(w, "%s, search %s (resolves to %s): %d active, %d deferred\n\n", strings.TrimSpace(rep.Provider+" "+rep.Model), rep.Search, rep.Resolved, rep.Active, rep.Deferred)
	if len(rep.Tools) == 0 {
		fmt.Fprintln(w, "no tools: no MCP server is configured or started (agent mcp list shows the presets; connect one with --mcp NAME)")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTOOLS\tDEFERRED\tTOKENS")
	for _, s := range rep.Servers {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", orDash(s.Server), s.Tools, s.Deferred, s.Tokens)
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tSERVER\tSET\tTOKENS")
	for _, t := range rep.Tools {
		set := "active"
		if t.Deferred {
			set = "deferred"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", t.Name, orDash(t.Server), set, t.Tokens)
	}
	_ = tw.Flush()
	if len(rep.Quarantined) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "QUARANTINED\tSERVER\tPROBLEM (never sent)")
		for _, q := range rep.Quarantined {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", q.Name, orDash(q.Server), q.Problem)
		}
		_ = tw.Flush()
	}
	e := rep.Sent
	fmt.Fprintf(w, "\nin the model's context per request: about %d tokens of tool definitions (every tool eager: %d; saved by deferral: %d)\n",
		e.Context, e.Eager, e.Saved)
	return nil
}
