package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/sanitize"
)

func newSessionsCompactCmd(g *Globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "compact ID [FOCUS...]",
		Short: "Summarise a session's turns; later requests send the summary",
		Long: `Compact a stored session: the model writes a summary of the conversation so far
(a request of its own, counted in the session's usage), and from then on the
summary is sent in place of those turns. The tools found before stay found
without a new search. The store keeps every message: agent sessions show still
prints them all. FOCUS, when given, says what the summary should keep. The
session is resumed with its stored provider, model and servers (the flags
override them).`,
		Args: sessionsMinArgs(1, "a session ID (see agent sessions)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			s, err := g.settings()
			if err != nil {
				return err
			}
			s.Resume = args[0]
			a, err := app.Open(ctx, s, app.Options{Getenv: g.Getenv, Version: versionString(), NoMCP: true})
			if err != nil {
				return err
			}
			defer a.Close()
			for _, w := range a.Warnings() {
				fmt.Fprintln(g.Stderr, "warning: "+sanitize.Line(w))
			}
			cp, err := a.Compact(ctx, strings.Join(args[1:], " "))
			if err != nil {
				return err
			}
			rep := a.ReportCompaction(cp)
			if asJSON {
				return app.WriteJSON(g.Stdout, rep)
			}
			app.WriteCompaction(g.Stdout, rep)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the compaction as JSON")
	return c
}
