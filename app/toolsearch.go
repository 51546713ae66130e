package app

import (
	"fmt"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tools/tokens"
)

// Tool search as the front ends see it: the engine without the model,
// the mode a model resolves to, what deferral saves, and which servers
// are deferred automatically.

// SearchTools runs the client-side engine without the model (/search),
// over the session's own index.
func (a *App) SearchTools(query string, limit int) ([]search.Hit, error) {
	var idx *search.Index
	if s, ok := a.session.Searcher().(*search.Searcher); ok {
		idx = s.Index()
	} else {
		idx = search.New(search.FromTools(a.session.Tools().Deferred()))
	}
	return idx.Search(query, search.Options{Limit: limit})
}

// SearchMode is the asked search mode, with what it resolves to for the
// current model when that differs ("native→client").
func (a *App) SearchMode() string {
	s := a.session
	mode := string(s.TurnContext().Search)
	p, _ := s.Target()
	if resolved := agent.ResolveSearch(p, s.BuildRequest()); string(resolved) != mode {
		mode += "→" + string(resolved)
	}
	return mode
}

// TokensSaved estimates the tokens deferral keeps out of every request
// (the benchmark's method, tokens.EstimateContext), cached per catalog
// version, resolved mode and discoveries. A catalog whose counts are not
// known yet (a first run, a changed server) is counted in the background,
// since that loads the tokenizer: until it is done the last figure (0 at
// first, which the status bar leaves out) is returned.
func (a *App) TokensSaved() int {
	s := a.session
	p, _ := s.Target()
	resolved := string(agent.ResolveSearch(p, s.BuildRequest()))
	v := s.Tools().Version()
	key := fmt.Sprint(v, resolved, len(s.Discovered()))
	a.mu.Lock()
	defer a.mu.Unlock()
	if (a.saved.key == key && v != 0) || a.saved.counting == key {
		return a.saved.value
	}
	a.saved.counting = key
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		a.CountTokens()
		saved := EstimateTokens(s.Tools(), resolved).Saved
		a.mu.Lock()
		a.saved.key, a.saved.value = key, saved
		a.mu.Unlock()
	}()
	return a.saved.value
}

// CountTokens counts the definitions whose token cost is not known yet
// (the catalog cache keeps the counts of a stable catalog) and writes the
// counts back to the cache, so each definition is counted once: when
// something asks (agent tools, the status bar), never before a request.
func (a *App) CountTokens() {
	counts := map[string]int{}
	for _, t := range a.session.Tools().All() {
		if t.Tokens == 0 {
			counts[t.Name] = t.Cost()
		}
	}
	if len(counts) == 0 {
		return
	}
	a.session.Tools().SetTokens(counts)
	if a.mcp != nil {
		a.mcp.SaveTokens(counts)
	}
}

// EstimateTokens is what the tool definitions of set cost in context under
// the resolved search mode.
func EstimateTokens(set *tools.Set, resolved string) tokens.Estimate {
	var active, deferred []tokens.Def
	for _, t := range set.Active() {
		active = append(active, tokens.Def{Name: t.Name, Description: t.Description, Schema: t.Schema, Tokens: t.Tokens})
	}
	for _, t := range set.Deferred() {
		deferred = append(deferred, tokens.Def{Name: t.Name, Description: t.Description, Schema: t.Schema, Tokens: t.Tokens})
	}
	return tokens.EstimateContext(active, deferred, resolved)
}

// applyAutoDefer implements --defer auto: whole servers move to the
// deferred set, biggest first, until the active definitions fit the
// threshold; the servers' alwaysLoad tools stay.
func (a *App) applyAutoDefer(configured map[string]config.MCPServer, model string) {
	budget := a.settings.deferBudget(model)
	set := a.session.Tools()
	// A token is at least a byte: active definitions whose JSON fits the
	// budget need no count (and no tokenizer). Otherwise the counts the
	// cache lacks are made now and written back, once per catalog.
	size, unknown := 0, false
	for _, t := range set.Active() {
		size += len(t.Name) + len(t.Description) + len(t.Schema) + 48 // the keys around them
		unknown = unknown || t.Tokens == 0
	}
	if size <= budget {
		return
	}
	if unknown {
		a.CountTokens()
	}
	if a.settings.Defer == "auto" {
		if servers := set.AutoDefer(budget, alwaysLoad(configured, a.mcp, set)); len(servers) > 0 {
			a.notices = append(a.notices, Notice{Warning: true, Text: fmt.Sprintf("--defer auto: deferred the tools of %s to keep active tools under %d tokens", strings.Join(servers, ", "), budget)})
		}
	}
	if cost := set.ActiveCost(); cost > budget {
		a.warnings = append(a.warnings, fmt.Sprintf("the active tool definitions take about %d tokens, over the %d-token threshold: defer them with --defer (or --defer auto)", cost, budget))
	}
}

// deferBudget is the --defer auto threshold in tokens: a share of the
// model's context window when below 1, else a token count.
func (s Settings) deferBudget(model string) int {
	threshold := s.DeferThreshold
	if threshold <= 0 {
		threshold = 0.1
	}
	if threshold >= 1 {
		return int(threshold)
	}
	return int(threshold * float64(s.contextWindow(model)))
}
