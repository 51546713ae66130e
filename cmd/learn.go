package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
)

func newToolsForgetCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "forget [TOOL]",
		Short: "Forget what tool search learned from use, or about one tool",
		Long: `Tool search learns from use: each call of a tool a search found is kept in the
session database with the user's request, and nudges that tool up for a similar
request later. forget deletes all of it, or what was learned about TOOL (its
name, or SERVER__NAME); the sessions themselves stay. --demo forgets the demo's,
kept apart. --no-learn or "learn": false stop it.`,
		Args: atMostArgs(1, "at most one TOOL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.settings()
			if err != nil {
				return err
			}
			n, err := app.ForgetToolUses(cmd.Context(), s, append(args, "")[0])
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(g.Stdout, "forgot %d recorded searches and calls\n", n)
			return err
		},
	}
}

func newToolsLearnCmd(g *Globals) *cobra.Command {
	c := &cobra.Command{Use: "learn", Short: "Export or import what tool search learned, as JSONL",
		Long: "Move what tool search learned between machines: export and import\n(request, tool) pairs as JSONL."}
	for _, sub := range []struct{ use, short, long string }{
		{"export", "Write the learned (request, tool) pairs to FILE as JSONL",
			`Write the learned pairs to FILE, {"query", "tool", "server", "at"} a line
(credentials redacted).`},
		{"import", "Add the learned pairs of FILE (as export writes it)",
			"Add the learned pairs of FILE (as export writes it); pairs already known are\nskipped."},
	} {
		c.AddCommand(&cobra.Command{Use: sub.use + " FILE", Short: sub.short, Long: sub.long, Args: exactArgs(1, "a FILE"), RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.settings()
			if err != nil {
				return err
			}
			msg, err := app.ShareLearned(cmd.Context(), s, sub.use, args[0])
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(g.Stdout, msg)
			return err
		}})
	}
	return c
}
