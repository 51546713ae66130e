// Package pricing is the price table the front ends show session costs
// from: US dollars per million tokens, by model id prefix. Prices change;
// the table says when it was read and a model it does not know has no cost
// (shown as unknown, never as free). Which providers cost nothing (local
// servers) their descriptors say.
//
// The package imports nothing of the project.
package pricing

import (
	"math"
	"sort"
	"strings"
)

// AsOf is when the table was last checked against the providers' pages.
const AsOf = "2025-11"

// Price is what one model costs, in US dollars per million tokens.
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
}

// Usage is the token counts a cost is computed from (the agent's Usage,
// restated so this package stays at the bottom of the arrows).
type Usage struct {
	Input, Output, CacheRead, CacheWrite int
}

// Cost is the price of u in US dollars.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output +
		float64(u.CacheRead)*p.CacheRead + float64(u.CacheWrite)*p.CacheWrite) / 1e6
}

// Round is usd to the nano-dollar, for a cost that is printed: a sum of
// requests' costs in float64 carries noise in its last digits
// (0.055569900000000005), and a price per million tokens of up to three
// decimals makes every token's cost a whole number of nano-dollars, so
// nothing real is lost.
func Round(usd float64) float64 { return math.Round(usd*1e9) / 1e9 }

// anthropic prices a cache write at 1.25× and a read at 0.1× the input.
func anthropic(in, out float64) Price { return Price{in, out, in * 0.1, in * 1.25} }

// cached prices a cached read at the given share of the input; writes cost
// the input price (OpenAI, Google, DeepSeek do not charge extra for them).
func cached(in, out, readShare float64) Price { return Price{in, out, in * readShare, in} }

// table is keyed by model id prefix; the longest matching prefix wins, so
// "gpt-4.1-mini" is not priced as "gpt-4.1".
var table = map[string]Price{
	"claude-opus-4-5":   anthropic(5, 25),
	"claude-opus-4-1":   anthropic(15, 75),
	"claude-opus-4":     anthropic(15, 75),
	"claude-sonnet-4":   anthropic(3, 15),
	"claude-3-7-sonnet": anthropic(3, 15),
	"claude-haiku-4-5":  anthropic(1, 5),
	"claude-3-5-haiku":  anthropic(0.8, 4),
	"claude-3-haiku":    anthropic(0.25, 1.25),

	"gpt-5-nano":   cached(0.05, 0.4, 0.1),
	"gpt-5-mini":   cached(0.25, 2, 0.1),
	"gpt-5":        cached(1.25, 10, 0.1),
	"gpt-4.1-nano": cached(0.1, 0.4, 0.25),
	"gpt-4.1-mini": cached(0.4, 1.6, 0.25),
	"gpt-4.1":      cached(2, 8, 0.25),
	"gpt-4o-mini":  cached(0.15, 0.6, 0.5),
	"gpt-4o":       cached(2.5, 10, 0.5),
	"o4-mini":      cached(1.1, 4.4, 0.25),
	"o3-mini":      cached(1.1, 4.4, 0.5),
	"o3":           cached(2, 8, 0.25),

	"gemini-2.5-pro":        cached(1.25, 10, 0.25),
	"gemini-2.5-flash-lite": cached(0.1, 0.4, 0.25),
	"gemini-2.5-flash":      cached(0.3, 2.5, 0.25),
	"gemini-2.0-flash":      cached(0.1, 0.4, 0.25),

	"deepseek-chat":     cached(0.28, 0.42, 0.1),
	"deepseek-reasoner": cached(0.28, 0.42, 0.1),

	"mistral-large":  cached(2, 6, 1),
	"mistral-medium": cached(0.4, 2, 1),
	"mistral-small":  cached(0.1, 0.3, 1),
	"codestral":      cached(0.3, 0.9, 1),
}

// Lookup finds the price of a model; an aggregator's "vendor/model" id is
// priced as the model. Whether a provider costs anything at all (a server
// on the user's machine does not) is the provider's to say.
func Lookup(model string) (Price, bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	// Bedrock spells ids "[geo.]vendor.model" (us.anthropic.claude-…):
	// the model starts after the last dot before its first dash.
	if dash := strings.IndexByte(m, '-'); dash > 0 {
		if i := strings.LastIndexByte(m[:dash], '.'); i >= 0 {
			m = m[i+1:]
		}
	}
	// OpenRouter spells Claude versions with dots (claude-sonnet-4.5).
	m = strings.ReplaceAll(m, "claude-sonnet-4.", "claude-sonnet-4-")
	m = strings.ReplaceAll(m, "claude-opus-4.", "claude-opus-4-")
	m = strings.ReplaceAll(m, "claude-haiku-4.", "claude-haiku-4-")
	best := ""
	for k := range table {
		if strings.HasPrefix(m, k) && len(k) > len(best) {
			best = k
		}
	}
	if best == "" {
		return Price{}, false
	}
	return table[best], true
}

// Models lists the priced model ids starting with one of prefixes (those
// of the family a provider serves), for a model picker when the provider
// cannot list its own.
func Models(prefixes ...string) []string {
	var out []string
	for k := range table {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
