package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agent-dev/agent/providers/registry"
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
