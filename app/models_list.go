package app

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agent-dev/agent/providers/registry"
	"github.com/agent-dev/agent/sanitize"
)

// listTimeout bounds the server's listing: a slow or silent server leaves
// the picker with the tables' models, not waiting.
const listTimeout = 5 * time.Second

// ListModels is what /model offers: the tables' models (Models) and, when
// the provider can list its server's models, those too. A failed listing
// leaves the tables' models.
func (a *App) ListModels(ctx context.Context) []ModelChoice {
	return a.listModels(ctx, listTimeout)
}

func (a *App) listModels(ctx context.Context, within time.Duration) []ModelChoice {
	out := a.Models()
	p, _ := a.session.Target()
	d, ok := registry.Lookup(a.Provider())
	if !ok || d.ListModels == nil {
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	names, err := d.ListModels(ctx, p)
	if err != nil {
		return out
	}
	seen := map[string]bool{}
	for _, m := range out {
		seen[m.Name] = true
	}
	label, table := a.Provider(), a.settings.modelTable()
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		detail := []string{"served"}
		if c := table.Lookup(label, n); c.ContextWindow > 0 && c.Known {
			detail = append(detail, fmt.Sprintf("%dk context", c.ContextWindow/1000))
		}
		if pr, ok := Price(label, n); ok && (pr.Input > 0 || pr.Output > 0) {
			detail = append(detail, fmt.Sprintf("$%g in / $%g out per Mtok", pr.Input, pr.Output))
		}
		out = append(out, ModelChoice{Name: n, Detail: strings.Join(detail, " · ")})
	}
	return out
}

// ModelList is agent models without an id: the models /model offers
// without asking the server (the current model, --model's or the
// provider's default, then the priced models of its family).
func ModelList(s Settings) ([]ModelChoice, error) {
	if err := CheckProvider(s.Provider); err != nil {
		return nil, err
	}
	d, _ := registry.Lookup(s.Provider)
	list := s.modelChoices(s.Provider, cmp.Or(s.Model, d.DefaultModel))
	if len(list) == 0 {
		return nil, Usagef("the tables know no model of %s and it has no default: name one, agent models MODEL", s.Provider)
	}
	return list, nil
}

// WriteModelList prints ModelList, a model a line, and how to see one.
func WriteModelList(w io.Writer, provider string, list []ModelChoice) error {
	sw := sanitize.NewWriter(w)
	defer sw.Flush()
	tw := tabwriter.NewWriter(sw, 0, 4, 2, ' ', 0)
	for _, m := range list {
		fmt.Fprintf(tw, "%s\t%s\n", m.Name, m.Detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(sw, "%d %s of %s in the tables; agent models MODEL shows more of one\n", len(list), plural(len(list), "model", "models"), provider)
	return err
}
