package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/sanitize"
)

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
			rep := app.AgentsReport(settings)
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
