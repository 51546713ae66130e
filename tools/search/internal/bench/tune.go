package bench

import (
	"fmt"
	"io"

	"github.com/agent-dev/agent/tools/search"
)

// Knob is one tunable setting and the values a search tries.
type Knob struct {
	Name   string
	Values []float64
	Set    func(c *search.Config, v float64)
}

// Knobs are the settings Tune searches: field weights and length
// normalisation, BM25's k1, feedback, synonyms and the name prior. Each has a
// handful of values around the default, so the search cannot fit noise by
// fine steps.
func Knobs() []Knob {
	field := func(name string, f int, vs ...float64) Knob {
		return Knob{name, vs, func(c *search.Config, v float64) { c.Weight[f] = v }}
	}
	b := func(name string, f int, vs ...float64) Knob {
		return Knob{name, vs, func(c *search.Config, v float64) { c.B[f] = v }}
	}
	return []Knob{
		{"k1", []float64{0.8, 1.2, 1.6, 2.0}, func(c *search.Config, v float64) { c.K1 = v }},
		field("w.name", search.FieldName, 1, 1.5, 2, 3),
		field("w.params", search.FieldParams, 0.5, 1, 1.5),
		field("w.server", search.FieldServer, 0.5, 1, 1.5, 2),
		field("w.phrase", search.FieldPhrase, 0.5, 1, 1.5, 2),
		b("b.name", search.FieldName, 0, 0.3, 0.5, 0.75),
		b("b.desc", search.FieldDescription, 0.5, 0.75, 0.9),
		b("b.params", search.FieldParams, 0.5, 0.75, 0.9),
		b("b.server", search.FieldServer, 0.5, 0.75, 0.9),
		{"fb.docs", []float64{0, 2, 3, 5, 8}, func(c *search.Config, v float64) { c.FeedbackDocs = int(v) }},
		{"fb.weight", []float64{0.2, 0.3, 0.5, 0.7}, func(c *search.Config, v float64) { c.FeedbackWeight = v }},
		{"fb.terms", []float64{5, 10, 20}, func(c *search.Config, v float64) { c.FeedbackTerms = int(v) }},
		{"diversity", []float64{0, 0.1, 0.2}, func(c *search.Config, v float64) { c.Diversity = v }},
		{"synonyms", []float64{0, 0.3, 0.5, 0.8}, func(c *search.Config, v float64) { c.Synonyms = v }},
		{"name prior", []float64{0, 0.2, 0.4, 0.6}, func(c *search.Config, v float64) { c.NamePrior = v }},
	}
}

// Tune runs coordinate ascent on nDCG@10 of set from start: each round tries
// every value of every knob, keeping a change only when it gains more than
// minGain points, until a round changes nothing. It logs each change to w.
func Tune(set *Set, start search.Config, knobs []Knob, minGain float64, w io.Writer) search.Config {
	eval := func(c search.Config) float64 {
		return set.Evaluate(IndexRanker(search.NewWithConfig(set.Docs, c))).NDCG10
	}
	best, bestScore := start, eval(start)
	fmt.Fprintf(w, "tune on %s: start nDCG@10 %.1f\n", set.Name, bestScore)
	for round := 1; round <= 5; round++ {
		changed := false
		for _, k := range knobs {
			for _, v := range k.Values {
				c := best
				k.Set(&c, v)
				if sc := eval(c); sc > bestScore+minGain {
					best, bestScore, changed = c, sc, true
					fmt.Fprintf(w, "  round %d: %s = %g -> %.1f\n", round, k.Name, v, sc)
				}
			}
		}
		if !changed {
			break
		}
	}
	return best
}
