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
	plain.B = fieldsB(0.75, 0.75)
	params := plain
	params.Weight[search.FieldParams] = 1
	porter := plain
	porter.Stemmer = "porter"
	all := params
	all.Weight[search.FieldServer] = 1
	allPorter := all
	allPorter.Stemmer = "porter"
	vs := []Variant{
		{"BM25 name+desc (reference)", plain},
		{"BM25 name+desc, porter (reference)", porter},
		{"BM25 name+desc+params (reference)", params},
		{"BM25 name+desc+params+server (reference)", all},
		{"BM25 name+desc+params+server, porter (reference)", allPorter},
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
	with("previous default", func(c *search.Config) {
		c.Joins, c.QueryJoins, c.FeedbackDocs, c.NamePrior, c.WordNet = true, false, 3, 0.3, 0
		c.B = fieldsB(0.3, 0.75)
	})
	with("- stemming", func(c *search.Config) { c.Stemmer = "" })
	with("porter -> s-stemmer", func(c *search.Config) { c.Stemmer = "s" })
	with("+ name joins", func(c *search.Config) { c.Joins = true })
	with("- query joins", func(c *search.Config) { c.QueryJoins = false })
	with("- phrase field", func(c *search.Config) { c.Weight[search.FieldPhrase] = 0 })
	with("phrase field 0.5", func(c *search.Config) { c.Weight[search.FieldPhrase] = 0.5 })
	with("- params field", func(c *search.Config) { c.Weight[search.FieldParams] = 0 })
	with("params field 2", func(c *search.Config) { c.Weight[search.FieldParams] = 2 })
	with("- server field", func(c *search.Config) { c.Weight[search.FieldServer] = 0 })
	with("name field 1", func(c *search.Config) { c.Weight[search.FieldName] = 1 })
	with("b 0.75 (name 0.3)", func(c *search.Config) { c.B = fieldsB(0.3, 0.75) })
	with("b 0.2", func(c *search.Config) { c.B = fieldsB(0.2, 0.2) })
	with("b 0.4", func(c *search.Config) { c.B = fieldsB(0.4, 0.4) })
	with("k1 0.9", func(c *search.Config) { c.K1 = 0.9 })
	with("k1 1.6", func(c *search.Config) { c.K1 = 1.6 })
	with("- cues", func(c *search.Config) { c.Cues = 0 })
	with("- path stems", func(c *search.Config) { c.PathStems = false })
	with("- implied steps", func(c *search.Config) { c.StepSlot = 0 })
	with("- Chinese glosses", func(c *search.Config) { c.Glosses = false })
	with("- chain", func(c *search.Config) { c.Chain = 0 })
	with("- cues - path stems - chain - steps", func(c *search.Config) { c.Cues, c.PathStems, c.Chain, c.StepSlot = 0, false, 0, 0 })
	with("- action synonyms", func(c *search.Config) { c.Synonyms = 0 })
	with("+ feedback (3 docs, 10 terms, 0.3)", func(c *search.Config) { c.FeedbackDocs = 3 })
	with("+ feedback 0.15", func(c *search.Config) { c.FeedbackDocs, c.FeedbackWeight = 3, 0.15 })
	with("+ server mix 0.25", func(c *search.Config) { c.ServerMix = 0.25 })
	with("- name prior", func(c *search.Config) { c.NamePrior = 0 })
	with("name prior 0.3", func(c *search.Config) { c.NamePrior = 0.3 })
	with("name prior 0.8", func(c *search.Config) { c.NamePrior = 0.8 })
	with("+ diversity 0.2", func(c *search.Config) { c.Diversity = 0.2 })
	with("+ intents RRF k=20 whole x#intents", func(c *search.Config) { c.Intents = search.IntentsRRF; c.RRFK = 20; c.WholeWeight = -1 })
	with("+ intents round-robin", func(c *search.Config) { c.Intents = search.IntentsRoundRobin })
	with("- wordnet", func(c *search.Config) { c.WordNet = 0 })
	with("wordnet 0.2", func(c *search.Config) { c.WordNet = 0.2 })
	with("wordnet 0.3 - action synonyms", func(c *search.Config) { c.Synonyms = 0 })
	with("- name derived forms", func(c *search.Config) { c.NameDerived = 0 })
	return vs
}

// Explore returns the variants tried while choosing the defaults.
func Explore() []Variant {
	def := search.DefaultConfig()
	var vs []Variant
	with := func(name string, f func(*search.Config)) {
		c := def
		f(&c)
		vs = append(vs, Variant{name, c})
	}
	with("default", func(c *search.Config) {})
	with("- paraphrase", func(c *search.Config) { c.Paraphrase = 0 })
	with("paraphrase 0.8", func(c *search.Config) { c.Paraphrase = 0.8 })
	with("paraphrase 1", func(c *search.Config) { c.Paraphrase = 1 })
	with("- demote", func(c *search.Config) { c.ParaphraseDemote = 0 })
	with("name prior 0.4", func(c *search.Config) { c.NamePrior = 0.4 })
	with("name field 1", func(c *search.Config) { c.Weight[search.FieldName] = 1 })
	with("- input prior", func(c *search.Config) { c.InputPrior = 0 })
	with("input prior 0.1", func(c *search.Config) { c.InputPrior = 0.1 })
	with("input prior 0.4", func(c *search.Config) { c.InputPrior = 0.4 })
	with("params field 1.5", func(c *search.Config) { c.Weight[search.FieldParams] = 1.5 })
	with("params field 2", func(c *search.Config) { c.Weight[search.FieldParams] = 2 })
	with("name prior 0.5", func(c *search.Config) { c.NamePrior = 0.5 })
	with("name field 1.5", func(c *search.Config) { c.Weight[search.FieldName] = 1.5 })
	with("name 1.5 params 1.5", func(c *search.Config) { c.Weight[search.FieldName] = 1.5; c.Weight[search.FieldParams] = 1.5 })
	with("input prior 0.3", func(c *search.Config) { c.InputPrior = 0.3 })
	with("k1 1.6", func(c *search.Config) { c.K1 = 1.6 })
	with("b params 0.5", func(c *search.Config) { c.B[search.FieldParams] = 0.5 })
	with("- name derived forms", func(c *search.Config) { c.NameDerived = 0 })
	with("name derived forms 0.3", func(c *search.Config) { c.NameDerived = 0.3 })
	with("name derived forms 0.5", func(c *search.Config) { c.NameDerived = 0.5 })
	return vs
}

// fieldsB is b for the name field and b for every other field.
func fieldsB(name, rest float64) [search.NumFields]float64 {
	var b [search.NumFields]float64
	for f := range b {
		b[f] = rest
	}
	b[search.FieldName] = name
	return b
}

// LearnVariant is a configuration for the learning table; NoUses runs it
// without the case's history.
type LearnVariant struct {
	Variant
	NoUses bool
}

// LearnVariants are the rows of searchbench -learn.
func LearnVariants() []LearnVariant {
	def := search.DefaultConfig()
	plain := search.Config{K1: 1.2, Stemmer: "porter"}
	plain.Weight[search.FieldName], plain.Weight[search.FieldDescription], plain.Weight[search.FieldLearned] = 1, 1, 1
	plain.B = fieldsB(0.75, 0.75)
	plain.LearnCap = 1 << 30
	vs := []LearnVariant{
		{Variant{"BM25 porter, no history (reference)", plain}, true},
		{Variant{"BM25 porter + requests appended (reference)", plain}, false},
		{Variant{"default, no history", def}, true},
		{Variant{"default", def}, false},
	}
	with := func(name string, f func(*search.Config)) {
		c := def
		f(&c)
		vs = append(vs, LearnVariant{Variant{name, c}, false})
	}
	with("- learn trust (every learned tool in full)", func(c *search.Config) { c.LearnTrust = 0 })
	with("learn trust 4", func(c *search.Config) { c.LearnTrust = 4 })
	with("learn trust 8", func(c *search.Config) { c.LearnTrust = 8 })
	with("learn trust 32", func(c *search.Config) { c.LearnTrust = 32 })
	for _, n := range []int{64, 256} {
		with(fmt.Sprintf("learn cap %d", n), func(c *search.Config) { c.LearnCap = n })
	}
	with("learned weight 2", func(c *search.Config) { c.Weight[search.FieldLearned] = 2 })
	with("learned b 0.75", func(c *search.Config) { c.B[search.FieldLearned] = 0.75 })
	with("learned apart, weight 2", func(c *search.Config) { c.LearnApart = 2 })
	with("name prior 0.3", func(c *search.Config) { c.NamePrior = 0.3 })
	with("- wordnet", func(c *search.Config) { c.WordNet = 0 })
	with("name weight 1", func(c *search.Config) { c.Weight[search.FieldName] = 1 })
	with("- phrase field", func(c *search.Config) { c.Weight[search.FieldPhrase] = 0 })
	with("b 0.75 in every field", func(c *search.Config) { c.B = [search.NumFields]float64{0.75, 0.75, 0.75, 0.75, 0.75, 0.75} })
	for _, k := range []float64{16, 64, 256} {
		with(fmt.Sprintf("prior trust %g", k), func(c *search.Config) { c.PriorTrust = k })
	}
	with("prior trust 256, k1 2", func(c *search.Config) { c.PriorTrust = 256; c.K1 = 2 })
	with("- neighbours", func(c *search.Config) { c.Neighbours = 0 })
	with("- expand cover", func(c *search.Config) { c.ExpandCover = 0 })
	with("expand cover 0.5", func(c *search.Config) { c.ExpandCover = 0.5 })
	with("neighbours 30", func(c *search.Config) { c.Neighbours = 30 })
	with("neighbours 100", func(c *search.Config) { c.Neighbours = 100 })
	with("neighbours weight 0.75", func(c *search.Config) { c.NeighbourWeight = 0.75 })
	with("neighbours weight 1.5", func(c *search.Config) { c.NeighbourWeight = 1.5 })
	with("neighbours weight 1.25", func(c *search.Config) { c.NeighbourWeight = 1.25 })
	with("neighbours power 2", func(c *search.Config) { c.NeighbourPower = 2 })
	with("neighbours weight 2", func(c *search.Config) { c.NeighbourWeight = 2 })
	with("prior cover 0.5", func(c *search.Config) { c.PriorCover = 0.5 })
	with("prior cover 1", func(c *search.Config) { c.PriorCover = 1 })
	with("- name prior - wordnet - synonyms, k1 2", func(c *search.Config) { c.NamePrior = 0; c.WordNet = 0; c.Synonyms = 0; c.K1 = 2 })
	with("- name derived forms", func(c *search.Config) { c.NameDerived = 0 })
	with("name derived forms 0.5", func(c *search.Config) { c.NameDerived = 0.5 })
	return vs
}
