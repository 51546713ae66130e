package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/sanitize"
)

func newMCPCmd(g *Globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "MCP servers: list them, sign in to remote ones and out",
		Args:  noArgs,
		// Runnable, so that a mistyped subcommand is an error rather
		// than the help and exit 0.
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(newMCPListCmd(g), &cobra.Command{
		Use:   "login NAME",
		Short: "Sign in to a remote MCP server (OAuth, through the browser)",
		Long: `Sign in to a remote MCP server (OAuth, through the browser); the token is kept
for later runs.`,
		Args: exactArgs(1, "a server NAME (see agent mcp list)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.settings()
			if err != nil {
				return err
			}
			kept, err := app.MCPLogin(cmd.Context(), s, args[0], g.Stderr)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Signed in to %s. The token is kept in %s.\n", sanitize.Line(args[0]), sanitize.Line(kept))
			return nil
		},
	}, &cobra.Command{
		Use:   "logout NAME",
		Short: "Forget a remote MCP server's sign-in (token and client)",
		Long:  "Forget a remote MCP server's sign-in: its token and its registered client.",
		Args:  exactArgs(1, "a server NAME (see agent mcp list)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.settings()
			if err != nil {
				return err
			}
			removed, err := app.MCPLogout(s, args[0])
			if err != nil {
				return err
			}
			if removed {
				fmt.Fprintf(cmd.OutOrStdout(), "Signed out of %s.\n", sanitize.Line(args[0]))
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), "%s had no sign-in.\n", sanitize.Line(args[0]))
			}
			return nil
		},
	})
	return c
}

func newMCPListCmd(g *Globals) *cobra.Command {
	var asJSON, all, showTools bool
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "list",
		Short: "Show the configured and preset MCP servers, status and tool counts",
		Long: `Lists the configured servers (and the presets named with --mcp, or every
preset with --all) with their tool counts. A server whose tool list is cached
for its current config is listed from the cache without being started (status
"cached"); the others are connected, each within --timeout. --refresh connects
every server: a health check. Other presets are listed as "available" without
being started.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.settings()
			if err != nil {
				return err
			}
			entries, err := app.MCPList(cmd.Context(), s, all, timeout, versionString())
			if err != nil {
				return err
			}
			if asJSON {
				return app.WriteJSON(cmd.OutOrStdout(), entries)
			}
			return app.WriteMCPList(cmd.OutOrStdout(), entries, showTools, termWidth(cmd.OutOrStdout()))
		},
	}
	f := c.Flags()
	f.BoolVar(&asJSON, "json", false, "print JSON (with every tool and its deferral)")
	f.BoolVar(&all, "all", false, "also start the presets not named with --mcp")
	f.BoolVar(&showTools, "tools", false, "list each server's tools with their deferral")
	f.DurationVar(&timeout, "timeout", 30*time.Second, "how long to wait for each server")
	refreshFlag(c, g)
	return c
}
