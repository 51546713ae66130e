package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/pricing"
)

// knownModel refuses a model id that a provider with a fixed catalog does
// not serve, naming the nearest ids: a typo in /model used to be accepted
// and failed only at the next request, with the provider's 404. Providers
// without a catalog (local servers, aggregators, compatible endpoints)
// take any id, and so does an id the config's "models" section declares.
func knownModel(provider, model string, table *models.Table) error {
	ids := pricing.Models(provider)
	if len(ids) == 0 {
		return nil
	}
	if _, ok := pricing.Lookup(provider, model); ok {
		return nil
	}
	for _, k := range table.Keys() {
		if k == model || (strings.HasSuffix(k, "*") && strings.HasPrefix(model, strings.TrimSuffix(k, "*"))) {
			return nil
		}
	}
	near := nearest(model, ids, 3)
	hint := `declare the id under "models" in the config to use a model the table does not know`
	if len(near) > 0 {
		hint = "did you mean " + strings.Join(near, ", ") + "? (or " + hint + ")"
	}
	return fmt.Errorf("unknown model %q for %s: %s", model, provider, hint)
}

// nearest returns up to n of ids closest to s by edit distance, closest
// first, leaving out those that share too little with s to be a typo of it.
func nearest(s string, ids []string, n int) []string {
	type cand struct {
		id string
		d  int
	}
	var cs []cand
	for _, id := range ids {
		d := editDistance(strings.ToLower(s), id)
		if d <= max(3, len(id)/3) {
			cs = append(cs, cand{id, d})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.id, b.id)
	})
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.id)
	}
	return out
}

// editDistance is the Levenshtein distance over bytes (ids are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
