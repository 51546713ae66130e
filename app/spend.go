package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/pricing"
	"github.com/agent-dev/agent/providers/registry"
)

// Spend is a session's usage and cost so far, its stored requests
// included (a resumed session's total does not restart at zero).
type Spend struct {
	Usage, Last agent.Usage
	Requests    int
	Cost        float64
	// Unpriced is set when a request went to a model without a price.
	Unpriced bool
}

// Spend returns the session's figures.
func (a *App) Spend() Spend {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.spend
}

// spent adds one request's usage and cost to the session's figures.
func (a *App) spent(provider, model string, u agent.Usage) { a.addSpend(provider, model, u, true) }

// addSpend counts a request; last says it is the session's own (its
// prompt size is the context's), not a subagent's.
func (a *App) addSpend(provider, model string, u agent.Usage, last bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	sp := &a.spend
	sp.Usage.Add(u)
	if last {
		sp.Last = u
	}
	sp.Requests++
	if c, ok := cost(provider, model, u); ok {
		sp.Cost += c
	} else {
		sp.Unpriced = true
	}
}

// loadSpend starts the figures from the session's stored requests and
// its subagents' (they were counted in while it ran).
func (a *App) loadSpend(ctx context.Context, id string) {
	a.mu.Lock()
	a.spend = Spend{}
	a.mu.Unlock()
	if id == "" {
		return
	}
	e, err := a.db.Export(ctx, id)
	if err != nil {
		return
	}
	for _, r := range e.Requests {
		a.spent(r.Provider, r.Model, r.Usage())
	}
	for _, r := range e.ChildRequests {
		a.addSpend(r.Provider, r.Model, r.Usage(), false)
	}
}

// ContextWindow is the current model's context size.
func (a *App) ContextWindow() int {
	_, model := a.session.Target()
	return a.settings.modelTable().Lookup(a.Provider(), model).ContextWindow
}

// servedBy refuses a model the capability table knows belongs to another
// family than the one a vendor's own API serves (gpt-4o on anthropic),
// naming the provider that serves it.
func servedBy(provider, model string) error {
	d, _ := registry.Lookup(provider)
	c := registry.Models(nil).Lookup(provider, model)
	if !d.Home || !c.Known || c.Family == "" || c.Family == d.Family {
		return nil
	}
	hint := "declare the id in the config's models section if this server does serve it"
	if other := registry.Home(c.Family); other != "" {
		hint = "use /model " + other + ":" + model
	}
	return fmt.Errorf("%s is %s %s model, which %s does not serve: %s", model, article(c.Family), c.Family, provider, hint)
}

// article is "an" before a vowel, else "a": "a openai model" was the
// error a new user read.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an"
	}
	return "a"
}

// Price is what model costs on the named provider: nothing on a server on
// the user's own machine (or in the demo), unknown when the price table
// does not know it.
func Price(provider, model string) (pricing.Price, bool) {
	if d, ok := registry.Lookup(provider); (ok && d.Local) || provider == demoName {
		return pricing.Price{}, true
	}
	return pricing.Lookup(model)
}

// demoName is the demo's provider (reached only through --demo, so not in
// the registry).
const demoName = "demo"

// ModelChoice is one model /model offers, with what to know about it.
type ModelChoice struct{ Name, Detail string }

// Models lists what /model offers: the priced models of the provider's
// family and the current one, with context window and price.
func (a *App) Models() []ModelChoice {
	_, cur := a.session.Target()
	return a.settings.modelChoices(a.Provider(), cur)
}

// modelChoices are the priced models of label's family, cur first (marked
// current), each with its context window and price from the tables.
func (s Settings) modelChoices(label, cur string) []ModelChoice {
	d, _ := registry.Lookup(label)
	table := s.modelTable()
	seen := map[string]bool{}
	var out []ModelChoice
	for _, n := range append([]string{cur}, pricing.Models(d.ModelPrefixes...)...) {
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		if n != cur && table.Lookup(label, n).Retired != "" {
			// Its maker no longer serves it: offered, it would be
			// refused at start (notRetired) or answer "not found".
			continue
		}
		var detail []string
		if n == cur {
			detail = append(detail, "current")
		}
		if w := table.Lookup(label, n).ContextWindow; w > 0 {
			detail = append(detail, fmt.Sprintf("%dk context", w/1000))
		}
		if p, ok := Price(label, n); ok && (p.Input > 0 || p.Output > 0) {
			detail = append(detail, fmt.Sprintf("$%g in / $%g out per Mtok", p.Input, p.Output))
		}
		out = append(out, ModelChoice{Name: n, Detail: strings.Join(detail, " · ")})
	}
	return out
}

// Delete removes a stored session; the current one cannot be.
func (a *App) Delete(ctx context.Context, id string) error {
	if id == a.session.ID() {
		return fmt.Errorf("it is the current session: /new first")
	}
	_, err := a.db.Delete(ctx, id)
	return err
}

// DropUnanswered deletes the session a failed -p run created when no
// answer came (the provider unreachable, say): it would hold the prompt
// alone, and --continue would pick it. It reports whether it did.
func (a *App) DropUnanswered() bool {
	if a.isResume {
		return false
	}
	for _, m := range a.session.Messages() {
		if m.Role == agent.RoleAssistant {
			return false
		}
	}
	a.mu.Lock()
	ss := a.stored
	a.mu.Unlock()
	if ss == nil {
		return false
	}
	id := ss.ID()
	_ = ss.Close()
	_, err := a.db.Delete(context.Background(), id)
	return err == nil
}
