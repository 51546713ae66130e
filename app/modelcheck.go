package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-dev/agent/internal/suggest"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/pricing"
	"github.com/agent-dev/agent/providers/registry"
)

// knownModel refuses a model id that looks like a typo of one the
// provider serves (claude-sonet-4-5, gtp-4o), naming the nearest ids: a
// typo in /model used to be accepted and failed only at the next request,
// with the provider's 404. An id that differs from a known one only in its
// version numbers (a model newer than the table) passes, as does any id on
// a provider without a catalog of its own (local servers, aggregators,
// cloud platforms with their own spellings) and any id the config's
// "models" section declares.
func knownModel(provider, model string, table *models.Table) error {
	d, _ := registry.Lookup(provider)
	ids := pricing.Models(d.ModelPrefixes...)
	if len(ids) == 0 || !d.Home {
		return nil
	}
	if _, ok := Price(provider, model); ok {
		return nil
	}
	for _, k := range table.Keys() {
		if k == model || (strings.HasSuffix(k, "*") && strings.HasPrefix(model, strings.TrimSuffix(k, "*"))) {
			return nil
		}
	}
	near := typoOf(strings.ToLower(model), ids)
	if len(near) == 0 {
		return nil
	}
	return fmt.Errorf("unknown model %q for %s: did you mean %s? (declare the id under \"models\" in the config if %s does serve it)",
		model, provider, strings.Join(near, " or "), provider)
}

// unknownModel is a warning for an id the tables know nothing of on a
// provider whose models they list (claude-nonexistent-9 on anthropic):
// not priced, matching no model family, not declared in the config. It
// is sent all the same, as a provider may serve models newer than the
// tables, but the user hears why the first request may fail before it
// does. Typos of a known id are refused before this (knownModel).
func unknownModel(provider, model string, table *models.Table) string {
	d, _ := registry.Lookup(provider)
	if model == "" || !d.Home || len(pricing.Models(d.ModelPrefixes...)) == 0 {
		return ""
	}
	if _, ok := Price(provider, model); ok || table.Lookup(provider, model).Known {
		return ""
	}
	for _, k := range table.Keys() {
		if k == model || (strings.HasSuffix(k, "*") && strings.HasPrefix(model, strings.TrimSuffix(k, "*"))) {
			return ""
		}
	}
	// One row of a 100-column chat for a model name of ~20 characters:
	// it was ~200 characters, three rows. The README says the rest (a
	// model declared under "models" is not warned about).
	return fmt.Sprintf("unknown model %s for %s, sent as is: agent models lists the known ones", model, provider)
}

// checkStartModel applies /model's checks to the model a run starts with
// (--model, the config's or a profile's; not a resumed session's, which
// was sent already): a typo of a known id is refused, an id the tables do
// not know is said. Behind --base-url any id may be served, as for /model.
func (a *App) checkStartModel(s Settings, model string) error {
	if s.Demo || s.BaseURL != "" || (a.isResume && s.Flags.Model == "") {
		return nil
	}
	table := s.modelTable()
	if err := knownModel(s.Provider, model, table); err != nil {
		return usage(err)
	}
	if w := unknownModel(s.Provider, model, table); w != "" {
		a.warnings = append(a.warnings, w)
	}
	return nil
}

// ModelWarning is what /model says after switching to the current model
// when the tables do not know it (unknownModel); "" behind --base-url and
// in the demo.
func (a *App) ModelWarning() string {
	if a.isDemo() || a.settings.BaseURL != "" {
		return ""
	}
	_, model := a.session.Target()
	return unknownModel(a.Provider(), model, a.settings.modelTable())
}

// typoOf returns the ids (at most three, sorted) that s is one edit away
// from, letters only: digits are masked, so claude-sonnet-5 is a version
// of claude-sonnet-4 and not a typo of it. The ids are price-table
// prefixes, so s is compared by its start as well.
func typoOf(s string, ids []string) []string {
	mask := func(x string) string {
		return strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return '#'
			}
			return r
		}, x)
	}
	ms := mask(s)
	var out []string
	for _, id := range ids {
		mi := mask(id)
		best := len(mi)
		for l := max(1, len(mi)-1); l <= min(len(ms), len(mi)+1); l++ {
			best = min(best, suggest.Distance(ms[:l], mi))
		}
		if best == 1 {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out[:min(3, len(out))]
}
