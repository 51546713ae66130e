package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/sanitize"
)

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
			settings, err := g.settings()
			if err != nil {
				return err
			}
			rep, err := app.BuildToolsReport(cmd.Context(), settings, app.Options{Getenv: g.Getenv, Version: versionString()})
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
	c.AddCommand(newToolsSearchCmd(g), newToolsForgetCmd(g), newToolsLearnCmd(g))
	return c
}

func writeToolsReport(w io.Writer, rep *app.ToolsReport) error {
	sw := sanitize.NewWriter(w) // tool and server names, warnings come from outside
	defer sw.Flush()
	w = sw
	for _, warn := range rep.Warnings {
		fmt.Fprintln(w, "warning: "+warn)
	}
	// The model is empty when the provider is not configured.
	provider := rep.Provider
	if rep.ProviderError != "" {
		provider += " (not configured: " + rep.ProviderError + ")"
	}
	fmt.Fprintf(w, "%s, search %s (resolves to %s): %d active, %d deferred\n\n", strings.TrimSpace(provider+" "+rep.Model), rep.Search, rep.Resolved, rep.Active, rep.Deferred)
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
	fmt.Fprintln(tw, "TOOL\tSERVER\tSET\tTOKENS\tANNOTATIONS")
	for _, t := range rep.Tools {
		set := "active"
		if t.Deferred {
			set = "deferred"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", t.Name, orDash(t.Server), set, t.Tokens, t.Annotations)
	}
	_ = tw.Flush()
	for _, l := range []struct {
		head string
		rows []app.QuarantinedRow
	}{{"QUARANTINED\tSERVER\tPROBLEM (never sent)", rep.Quarantined}, {"HIDDEN\tSERVER\tREASON (never sent)", rep.Hidden}} {
		if len(l.rows) == 0 {
			continue
		}
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, l.head)
		for _, q := range l.rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", q.Name, orDash(q.Server), q.Problem)
		}
		_ = tw.Flush()
	}
	e := rep.Sent
	fmt.Fprintf(w, "\nin the model's context per request: about %d tokens of tool definitions (every tool eager: %d; saved by deferral: %d)\n",
		e.Context, e.Eager, e.Saved)
	return nil
}
