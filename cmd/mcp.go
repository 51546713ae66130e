package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/sanitize"
	mcptools "github.com/agent-dev/agent/tools/mcp"
)

func newMCPCmd(g *Globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "MCP servers: list them, sign in to remote ones and out",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(newMCPListCmd(g), &cobra.Command{
		Use:   "login NAME",
		Short: "Sign in to a remote MCP server (OAuth, through the browser; the token is kept for later runs)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.settings()
			if err != nil {
				return err
			}
			if err := app.MCPLogin(cmd.Context(), s, args[0], g.Stderr); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Signed in to %s.\n", sanitize.Line(args[0]))
			return nil
		},
	}, &cobra.Command{
		Use:   "logout NAME",
		Short: "Forget a remote MCP server's sign-in (its token and registered client)",
		Args:  cobra.ExactArgs(1),
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
		Short: "Show configured and preset MCP servers, their status and tool counts",
		Long: `Connects the configured servers (and the presets named with --mcp, or every preset
with --all) to count their tools, each within --timeout. Other presets are listed as
"available" without being started.`,
		Args: cobra.NoArgs,
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
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(entries)
			}
			return writeMCPList(cmd.OutOrStdout(), entries, showTools)
		},
	}
	f := c.Flags()
	f.BoolVar(&asJSON, "json", false, "print JSON (with every tool and its deferral)")
	f.BoolVar(&all, "all", false, "also start the presets not named with --mcp")
	f.BoolVar(&showTools, "tools", false, "list each server's tools with their deferral")
	f.DurationVar(&timeout, "timeout", 30*time.Second, "how long to wait for each server")
	return c
}

func writeMCPList(w io.Writer, entries []app.MCPEntry, showTools bool) error {
	sw := sanitize.NewWriter(w) // server names, errors and tool names come from outside
	defer sw.Flush()
	w = sw
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTRANSPORT\tSTATUS\tSIGN-IN\tTOOLS\tDEFERRED\tSOURCE\tDETAIL")
	for _, e := range entries {
		count, deferred := "-", "-"
		if e.State == mcptools.StateRunning || e.State == mcptools.StateDown {
			count, deferred = strconv.Itoa(e.Tools), strconv.Itoa(e.Deferred)
		}
		detail := e.Target
		if e.Error != "" {
			detail = e.Error
		}
		signIn := e.SignIn
		if signIn == "" {
			signIn = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, e.Transport, e.State, signIn, count, deferred, e.Source, oneLine(detail))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !showTools {
		return nil
	}
	for _, e := range entries {
		if len(e.ToolNames) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: %d tools, %d deferred\n", e.Name, e.Tools, e.Deferred)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, t := range e.ToolNames {
			mark := "active"
			if t.Deferred {
				mark = "deferred"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Name, mark, t.ServerTool)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
