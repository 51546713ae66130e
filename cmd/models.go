package cmd

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/sanitize"
)

// modelRow is what agent models prints of one model id.
type modelRow struct {
	Model    string `json:"model"`
	Provider string `json:"provider"`
	models.Capabilities
	EffortMap     map[string]string `json:"effort_map,omitempty"`
	ProviderTools []string          `json:"provider_tools"`
}

func newModelsCmd(g *Globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "models [MODEL...]",
		Short: "Show what the capability table says of models (the config's models section applied)",
		Long: `Show the capabilities the adapters use for each model id under the current --provider: context
window, output limits, tool search and deferral, reasoning and thinking, effort levels, schema
dialect. Ids the table does not know say so; declare them in the config's "models" section.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.settings()
			if err != nil {
				return err
			}
			if err := app.CheckProvider(s.Provider); err != nil {
				return err
			}
			if len(args) == 0 && s.Model != "" {
				args = []string{s.Model}
			}
			if len(args) == 0 {
				return app.Usagef("name a model: agent models MODEL (or --model)")
			}
			table, err := s.ModelTable()
			if err != nil {
				return app.Usagef("%v", err)
			}
			var rows []modelRow
			for _, m := range args {
				c := table.Lookup(s.Provider, m)
				rows = append(rows, modelRow{m, s.Provider, c, c.EffortMap(), append([]string{}, app.HostedTools(s.Provider)...)})
			}
			if asJSON {
				e := json.NewEncoder(g.Stdout)
				e.SetIndent("", "  ")
				return e.Encode(rows)
			}
			sw := sanitize.NewWriter(g.Stdout)
			defer sw.Flush()
			for _, r := range rows {
				tw := tabwriter.NewWriter(sw, 0, 4, 2, ' ', 0)
				c := r.Capabilities
				known := "known"
				if !c.Known {
					known = "not in the table: conservative defaults (declare it in the config's \"models\")"
				}
				fmt.Fprintf(sw, "%s (%s): %s\n", r.Model, r.Provider, known)
				fmt.Fprintf(tw, "  context window\t%d\n  max output\t%d (default %d)\n", c.ContextWindow, c.MaxOutput, c.DefaultMaxTokens)
				fmt.Fprintf(tw, "  tool search\t%v (defer_loading %v)\n", c.NativeSearch, c.DeferLoading)
				fmt.Fprintf(tw, "  reasoning\t%s (thinking %s, encrypted %v)\n", c.Reasoning, c.Thinking, c.EncryptedReasoning)
				efforts := strings.Join(c.Efforts, ", ")
				if efforts == "" {
					efforts = "-"
				}
				fmt.Fprintf(tw, "  efforts\t%s\n  schema dialect\t%s\n  takes images\t%v\n", efforts, c.SchemaDialect, c.TakesImages)
				var maps []string
				for _, l := range models.EffortLevels {
					if w, ok := r.EffortMap[l]; ok {
						maps = append(maps, l+"→"+w)
					}
				}
				fmt.Fprintf(tw, "  --effort\t%s\n", cmp.Or(strings.Join(maps, ", "), "-"))
				fmt.Fprintf(tw, "  provider tools\t%s\n  retired\t%s\n", cmp.Or(strings.Join(r.ProviderTools, ", "), "none"), cmp.Or(c.Retired, "no"))
				if err := tw.Flush(); err != nil {
					return err
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
