package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
)

func newToolsForgetCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "forget",
		Short: "Forget what tool search learned from use: every recorded search and call",
		Long: `Tool search learns from use: each search a session runs, and each call of a tool a search
found, is kept in the session database and ranks that tool higher for a similar request
later. forget deletes all of it (the sessions themselves stay). --no-learn or "learn": false
in the config stop the recording.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.settings()
			if err != nil {
				return err
			}
			n, err := app.ForgetToolUses(cmd.Context(), s)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(g.Stdout, "forgot %d recorded searches and calls\n", n)
			return err
		},
	}
}
