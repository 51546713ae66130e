package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/store"
)

// newSessionsCmd is `agent sessions` with its show and rm subcommands.
func newSessionsCmd(g *Globals) *cobra.Command {
	var asJSON, all bool
	var limit int
	c := &cobra.Command{
		Use:   "sessions",
		Short: "List stored sessions, newest first",
		Long: `List stored sessions, newest first: ID, last update, title, provider/model,
messages and tool searches. Resume one with agent --resume ID (a unique ID
prefix is enough).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit <= 0 {
				return usagef("--limit must be positive (use --all for every session)")
			}
			return withSessionDBRead(cmd.Context(), g, func(db *store.DB) error {
				// One more than asked tells whether the list was cut.
				list, err := db.List(cmd.Context(), store.ListOptions{Limit: limit + 1, All: all})
				if err != nil {
					return err
				}
				cut := !all && len(list) > limit
				if cut {
					list = list[:limit]
				}
				out := cmd.OutOrStdout()
				if asJSON {
					return app.WriteJSON(out, list)
				}
				if len(list) == 0 {
					fmt.Fprintf(out, "No sessions yet in %s.\n", db.Path())
					return nil
				}
				app.WriteSessionTable(out, list, time.Now(), termWidth(out))
				if cut {
					fmt.Fprintf(cmd.ErrOrStderr(), "Showing the %d most recent sessions; --all lists every one.\n", limit)
				}
				return nil
			})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	c.Flags().BoolVar(&all, "all", false, "list every session with a message, not only the --limit most recent (one with no message is never listed)")
	c.Flags().IntVar(&limit, "limit", 50, "how many sessions to list")
	c.AddCommand(newSessionsShowCmd(g), newSessionsRmCmd(g), newSessionsCompactCmd(g))
	return c
}

func newSessionsShowCmd(g *Globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "show ID",
		Short: "Print a session's transcript (--json exports the whole session)",
		Args:  sessionsExactArgs(1, "a session ID (see agent sessions)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSessionDBRead(cmd.Context(), g, func(db *store.DB) error {
				e, err := db.Export(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if asJSON {
					return app.WriteJSON(cmd.OutOrStdout(), e)
				}
				app.WriteTranscript(cmd.OutOrStdout(), e)
				return nil
			})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "export the whole session as JSON: settings, messages with raw provider blocks, discoveries, usage")
	return c
}

func newSessionsRmCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:     "rm ID...",
		Aliases: []string{"delete"},
		Short:   "Delete sessions",
		Args:    sessionsMinArgs(1, "a session ID (see agent sessions)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSessionDB(cmd.Context(), g, func(db *store.DB) error {
				for _, a := range args {
					id, err := db.Delete(cmd.Context(), a)
					if err != nil {
						return err
					}
					fmt.Fprintf(cmd.OutOrStdout(), "Deleted session %s.\n", id)
				}
				return nil
			})
		},
	}
}

func sessionsExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %s (got %d arguments)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

func sessionsMinArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usagef("%s takes %s", cmd.CommandPath(), what)
		}
		return nil
	}
}

func withSessionDB(ctx context.Context, g *Globals, fn func(*store.DB) error) error {
	return app.WithSessionDB(ctx, g.DBPath, false, fn)
}

// withSessionDBRead opens a database the user cannot write read-only.
func withSessionDBRead(ctx context.Context, g *Globals, fn func(*store.DB) error) error {
	return app.WithSessionDB(ctx, g.DBPath, true, fn)
}
