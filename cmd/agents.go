package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/sanitize"
)

// agentRow is one profile of `agent agents --json`.
type agentRow struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Source      string   `json:"source"`
	Path        string   `json:"path"`
	Provider    string   `json:"provider,omitempty"`
	Model       string   `json:"model,omitempty"`
	MCP         []string `json:"mcp,omitempty"`
	Defer       string   `json:"defer,omitempty"`
	DeferTools  []string `json:"defer_tools,omitempty"`
	Tools       []string `json:"tools,omitempty"`
	Search      string   `json:"search,omitempty"`
	PromptChars int      `json:"prompt_chars"`
}

type agentsReport struct {
	Agents []agentRow `json:"agents"`
	Errors []string   `json:"errors"`
}

func newAgentsCmd(g *Globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "agents",
		Short: "List agent profiles (.agent/agents/NAME.md, ~/.config/agent/agents/NAME.md, the config's agents) and where each comes from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			settings, err := g.settings()
			if err != nil {
				return err
			}
			set := settings.Profiles()
			rep := agentsReport{Agents: []agentRow{}, Errors: []string{}}
			for _, p := range set.List() {
				rep.Agents = append(rep.Agents, agentRow{Name: p.Name, Description: p.Description, Source: p.Source, Path: p.Path,
					Provider: p.Provider, Model: p.Model, MCP: p.MCP, Defer: p.Defer, DeferTools: p.DeferTools, Tools: p.Tools,
					Search: p.Search, PromptChars: len(p.System)})
			}
			for _, err := range set.Errors {
				rep.Errors = append(rep.Errors, err.Error())
			}
			if asJSON {
				e := json.NewEncoder(g.Stdout)
				e.SetIndent("", "  ")
				return e.Encode(rep)
			}
			for _, e := range rep.Errors {
				fmt.Fprintln(g.Stderr, "warning: "+sanitize.Line(e))
			}
			if len(rep.Agents) == 0 {
				fmt.Fprintln(g.Stdout, "No agent profiles. Add one as .agent/agents/NAME.md: YAML front matter (description, model, mcp, defer, tools, ...), then the system prompt.")
				return nil
			}
			tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSOURCE\tMODEL\tMCP\tDESCRIPTION")
			for _, a := range rep.Agents {
				model := strings.TrimPrefix(a.Provider+":"+a.Model, ":")
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", sanitize.Line(a.Name), a.Source+" "+sanitize.Line(shortPath(settings.Workdir, a.Path)),
					orDash(sanitize.Line(model)), orDash(sanitize.Line(strings.Join(a.MCP, ","))), sanitize.Line(a.Description))
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

// shortPath shows a profile's file relative to the working directory when
// it is inside it.
func shortPath(workdir, p string) string {
	if rel, err := filepath.Rel(workdir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
