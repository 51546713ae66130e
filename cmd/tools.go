package cmd

import (
	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
)

func newToolsCmd(g *Globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "tools",
		Short: "List the MCP servers' active and deferred tools, with their cost",
		Long: `List every tool of the MCP servers this run would connect (--mcp NAME, or every
configured server), whether it is active or deferred, its estimated token cost
(o200k), each server's total, and what the current provider, model and search
mode would send. A server whose tool list is cached is not started (--refresh
starts every server).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			settings, err := g.settings()
			if err != nil {
				return err
			}
			rep, err := app.BuildToolsReport(cmd.Context(), settings, app.Options{Getenv: g.Getenv, Version: versionString()})
			if err != nil {
				return err
			}
			if asJSON {
				return app.WriteJSON(g.Stdout, rep)
			}
			return app.WriteToolsReport(g.Stdout, rep, termWidth(g.Stdout))
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	refreshFlag(c, g)
	c.AddCommand(newToolsSearchCmd(g), newToolsForgetCmd(g), newToolsLearnCmd(g))
	return c
}

// refreshFlag adds --refresh to a listing command (agent tools, agent
// tools search, agent mcp list): each reads a server's cached tool list
// without starting it, unless told to start every one.
func refreshFlag(c *cobra.Command, g *Globals) {
	c.Flags().BoolVar(&g.Refresh, "refresh", false, "start every MCP server and list it live (also updates the cached tool lists), instead of answering from the cache")
}
