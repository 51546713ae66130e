package cmd

import (
	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
)

func newAgentsCmd(g *Globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "agents",
		Short: "List the agent profiles and where each comes from",
		Long: `List the agent profiles (.agent/agents/NAME.md, ~/.config/agent/agents/NAME.md,
the config's agents) and where each comes from.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			settings, err := g.settings()
			if err != nil {
				return err
			}
			rep := app.AgentsReport(settings)
			if asJSON {
				return app.WriteJSON(g.Stdout, rep)
			}
			return app.WriteAgents(g.Stdout, g.Stderr, rep, settings.Workdir)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
