package bench

import (
	"fmt"

	"github.com/agent-dev/agent/tools/search"
)

// Variant is a named engine configuration.
type Variant struct {
	Name   string
	Config search.Config
}

// Variants returns the reference baselines and the default; with ablate,
// also the default minus each signal.
func Variants(ablate bool) []Variant {
	def := search.DefaultConfig()
	plain := search.Config{K1: 1.2}
	plain.Weight[search.FieldName], plain.Weight[search.FieldDescription] = 1, 1
	plain.B = [search.NumFields]float64{0.75, 0.75, 0.75, 0.75, 0.75}
	params := plain
	params.Weight[search.FieldParams] = 1
	vs := []Variant{
		{"BM25 name+desc (reference)", plain},
		{"BM25 name+desc+params (reference)", params},
		{"default", def},
	}
	if !ablate {
		return vs
	}
	with := func(name string, f func(*search.Config)) {
		c := def
		f(&c)
		vs = append(vs, Variant{name, c})
	}
	with("- stemming", func(c *search.Config) { c.Stemmer = "" })
	with("porter -> s-stemmer", func(c *search.Config) { c.Stemmer = "s" })
	with("- name joins", func(c *search.Config) { c.Joins = false })
	with("- phrase field", func(c *search.Config) { c.Weight[search.FieldPhrase] = 0 })
	with("- params field", func(c *search.Config) { c.Weight[search.FieldParams] = 0 })
	with("- server field", func(c *search.Config) { c.Weight[search.FieldServer] = 0 })
	with("- cues", func(c *search.Config) { c.Cues = 0 })
	with("- path stems", func(c *search.Config) { c.PathStems = false })
	with("- implied steps", func(c *search.Config) { c.StepSlot = 0 })
	for _, slot := range []int{3, 8} {
		with(fmt.Sprintf("implied steps at %d", slot), func(c *search.Config) { c.StepSlot = slot })
	}
	with("- Chinese glosses", func(c *search.Config) { c.Glosses = false })
	with("- chain", func(c *search.Config) { c.Chain = 0 })
	with("- cues - path stems - chain", func(c *search.Config) { c.Cues, c.PathStems, c.Chain = 0, false, 0 })
	for _, w := range []float64{0.5, 1.5} {
		with(fmt.Sprintf("cues %.1f", w), func(c *search.Config) { c.Cues = w })
	}
	for _, w := range []float64{0.3, 0.7} {
		with(fmt.Sprintf("chain %.1f", w), func(c *search.Config) { c.Chain = w })
	}
	with("- action synonyms", func(c *search.Config) { c.Synonyms = 0 })
	with("- feedback", func(c *search.Config) { c.FeedbackDocs = 0 })
	with("+ server mix 0.25", func(c *search.Config) { c.ServerMix = 0.25 })
	with("+ server mix 0.5", func(c *search.Config) { c.ServerMix = 0.5 })
	with("- name prior", func(c *search.Config) { c.NamePrior = 0 })
	with("name prior 0.15", func(c *search.Config) { c.NamePrior = 0.15 })
	with("name prior 0.6", func(c *search.Config) { c.NamePrior = 0.6 })
	with("+ phrase feedback", func(c *search.Config) { c.PhraseFeedback = true })
	with("+ phrase feedback - name prior", func(c *search.Config) { c.PhraseFeedback = true; c.NamePrior = 0 })
	with("+ diversity 0.2", func(c *search.Config) { c.Diversity = 0.2 })
	with("+ diversity 0.4", func(c *search.Config) { c.Diversity = 0.4 })
	with("+ intents RRF k=60", func(c *search.Config) { c.Intents = search.IntentsRRF })
	with("+ intents RRF k=20", func(c *search.Config) { c.Intents = search.IntentsRRF; c.RRFK = 20 })
	with("+ intents RRF k=60 whole x2", func(c *search.Config) { c.Intents = search.IntentsRRF; c.WholeWeight = 2 })
	with("+ intents RRF k=60 whole x#intents", func(c *search.Config) { c.Intents = search.IntentsRRF; c.WholeWeight = -1 })
	with("+ intents RRF k=20 whole x#intents", func(c *search.Config) { c.Intents = search.IntentsRRF; c.RRFK = 20; c.WholeWeight = -1 })
	with("+ wordnet 0.2", func(c *search.Config) { c.WordNet = 0.2 })
	with("+ wordnet 0.3", func(c *search.Config) { c.WordNet = 0.3 })
	with("+ wordnet 0.4", func(c *search.Config) { c.WordNet = 0.4 })
	with("+ wordnet 0.3 - action synonyms", func(c *search.Config) { c.WordNet = 0.3; c.Synonyms = 0 })
	with("+ intents round-robin", func(c *search.Config) { c.Intents = search.IntentsRoundRobin })
	return vs
}
