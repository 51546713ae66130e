package cmd

import (
	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
)

func newModelsCmd(g *Globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "models [MODEL...]",
		Short: "List the provider's models, or show what the tables say of some",
		Long: `Without MODEL (or --model), list the models the tables know for the
current --provider: the current one first, with context window and price.

With MODEL, show the capabilities the adapters use for each model id under the
current --provider: context window, output limits, tool search and deferral,
reasoning and thinking, effort levels, schema dialect. Ids the table does not
know say so; declare them in the config's "models" section.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.settings()
			if err != nil {
				return err
			}
			if len(args) == 0 && s.Flags.Model == "" {
				list, err := app.ModelList(s)
				if err != nil {
					return err
				}
				if !asJSON {
					return app.WriteModelList(g.Stdout, s.Provider, list)
				}
				for _, m := range list {
					args = append(args, m.Name)
				}
			}
			rows, err := app.ModelRows(s, args)
			if err != nil {
				return err
			}
			if asJSON {
				return app.WriteJSON(g.Stdout, rows)
			}
			return app.WriteModels(g.Stdout, rows)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
