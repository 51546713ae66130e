package tools

import (
	"sort"

	"github.com/agent-dev/agent/tools/tokens"
)

// Cost is the estimated token cost of a tool definition as sent: the known
// count when there is one, else counted (which loads the tokenizer).
func (t Tool) Cost() int {
	if t.Tokens > 0 {
		return t.Tokens
	}
	return tokens.Tool(t.Name, t.Description, t.Schema)
}

// ActiveCost sums the estimated tokens of the active tools.
func (s *Set) ActiveCost() int {
	n := 0
	for _, t := range s.Active() {
		n += t.Cost()
	}
	return n
}

// AutoDefer moves whole servers' tools to the deferred set, most expensive
// server first, until the active definitions fit in budget tokens. Tools in
// keep (alwaysLoad) stay active, as do tools without a server (built-ins).
// It returns the servers it deferred.
func (s *Set) AutoDefer(budget int, keep map[string]bool) []string {
	if s.ActiveCost() <= budget {
		return nil
	}
	cost := map[string]int{}
	for _, t := range s.Active() {
		if t.Server != "" && !keep[t.Name] {
			cost[t.Server] += t.Cost()
		}
	}
	servers := MostFirst(cost)
	var deferred []string
	total := s.ActiveCost()
	for _, srv := range servers {
		if total <= budget {
			break
		}
		for _, t := range s.Active() {
			if t.Server == srv && !keep[t.Name] {
				s.SetDeferred(t.Name, true)
			}
		}
		total -= cost[srv]
		deferred = append(deferred, srv)
	}
	return deferred
}

// MostFirst is the keys of count, the largest count first and then by
// name: the order in which whole servers are deferred (AutoDefer, and the
// agent's fitting to a provider's tool limit) and a directory's common
// words are picked, the same for the same counts.
func MostFirst(count map[string]int) []string {
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if count[keys[i]] != count[keys[j]] {
			return count[keys[i]] > count[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
