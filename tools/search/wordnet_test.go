package search

import (
	"slices"
	"strings"
	"testing"
)

// The tables are looked up by binary search in their blocks; before, each
// process read them whole into a map keyed by stem, stemming every lemma
// (lemmaTable.stemmed still does, for other stemmers). Every stem of that
// map, and words that are no stem of it, must look up the same words in
// the same order: the search's results depend on both.
func TestLemmaTableLookupIsTheStemmedMap(t *testing.T) {
	for name, table := range map[string]*lemmaTable{"synonyms": wordnetTable, "derived forms": derivedTable} {
		t.Run(name, func(t *testing.T) {
			want := table.stemmed(tableStemmer)
			if len(want) < 15000 {
				t.Fatalf("%d stems, want the generated ~17k or more", len(want))
			}
			for k, ws := range want {
				if got := table.lookup(tableStemmer, k); !slices.Equal(got, ws) {
					t.Errorf("lookup(%q) = %v, want %v", k, got, ws)
				}
			}
			// Words around and between the stems, and past both ends.
			misses := []string{"", "a", "aa", "zzzzz", "~", "{"}
			for k := range want {
				misses = append(misses, k[:len(k)-1], k+"a", k+"zz", k+" ")
			}
			for _, k := range misses {
				if _, ok := want[k]; ok {
					continue
				}
				if got := table.lookup(tableStemmer, k); got != nil {
					t.Errorf("lookup(%q) = %v, want nothing", k, got)
				}
			}
		})
	}
}

// A line's stem is the engine's Porter stem of its lemma: a change to the
// stemmer that left the generated tables behind would have lookups miss.
// Regenerate them then (go generate ./tools/search/, see wordnet.go).
func TestLemmaTableStemsAreCurrent(t *testing.T) {
	for name, table := range map[string]*lemmaTable{"synonyms": wordnetTable, "derived forms": derivedTable} {
		if table.Blocks() < 2 {
			t.Fatalf("%s: %d blocks, want the table in many", name, table.Blocks())
		}
		prev := ""
		for i := range table.Blocks() {
			text := table.Text(i)
			if text == "" {
				t.Fatalf("%s: block %d does not decompress", name, i)
			}
			first := true
			for l := range strings.Lines(text) {
				stem, rest, _ := strings.Cut(strings.TrimSuffix(l, "\n"), " ")
				lemma, words := splitLemma(stem, rest)
				if first && stem != table.Head(i) {
					t.Errorf("%s: block %d starts with %q, its index says %q", name, i, stem, table.Head(i))
				}
				if first && i > 0 && stem == prev {
					t.Errorf("%s: the lines of stem %q are split at block %d", name, stem, i)
				}
				first = false
				if want := stemmerFunc(tableStemmer)(lemma); stem != want {
					t.Errorf("%s: %q is written under stem %q, the stemmer now gives %q", name, lemma, stem, want)
				}
				if stem < prev {
					t.Errorf("%s: %q after %q: the lines are out of order", name, stem, prev)
				}
				if words == "" {
					t.Errorf("%s: %q has no words", name, lemma)
				}
				prev = stem
			}
		}
	}
}
