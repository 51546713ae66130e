package search

import (
	"slices"
	"testing"
)

func TestSplitIntents(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"find the paper, then save it to /root/a.md", []string{"find the paper", "save it to /root/a.md"}},
		{"Search arXiv. Summarize it and send an email", []string{"Search arXiv", "Summarize it", "send an email"}},
		{"open www.example.com and after that take a screenshot", []string{"open www.example.com", "take a screenshot"}},
		{"weather in Paris", []string{"weather in Paris"}},
		{", ; 123 .", nil},
	} {
		if got := splitIntents(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("splitIntents(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

// The fusion and WordNet options are off by default (they did not pass the
// benchmark); they must still behave on any input.
func TestIntentsAndWordNetOptions(t *testing.T) {
	docs := []Doc{
		{Name: "write_file", Description: "Write text to a file", Server: "fs"},
		{Name: "search_papers", Description: "Search arXiv papers", Server: "arxiv"},
		{Name: "get_image", Description: "Get an image", Server: "img"},
	}
	for _, f := range []Fusion{IntentsRRF, IntentsRoundRobin} {
		cfg := DefaultConfig()
		cfg.Intents, cfg.WordNet, cfg.Synonyms = f, 0.3, 0 // no hand-made synonyms: WordNet alone
		ix := NewWithConfig(docs, cfg)
		hits, err := ix.Search("find papers on arXiv, then write them to a file", Options{Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, h := range hits {
			names = append(names, h.Name)
		}
		if !slices.Contains(names, "write_file") || !slices.Contains(names, "search_papers") {
			t.Errorf("fusion %d: got %v, want both write_file and search_papers", f, names)
		}
		// "picture" is not in the catalog; WordNet gives "image".
		if hits, _ := ix.Search("picture", Options{}); len(hits) == 0 || hits[0].Name != "get_image" {
			t.Errorf("fusion %d: picture: got %v, want get_image first", f, hits)
		}
		for _, q := range []string{", , ,", "and then and", "."} {
			if _, err := ix.Search(q, Options{}); err != nil && err != ErrEmptyQuery {
				t.Errorf("%q: %v", q, err)
			}
		}
	}
}

func TestWordNetTable(t *testing.T) {
	if n := len(wordnetTable.stemmed("")); n < 20000 {
		t.Fatalf("WordNet table has %d lemmas, want the generated ~29k", n)
	}
	if got := wordnetSynonyms("porter", stem("picture")); !slices.Contains(got, "image") {
		t.Errorf("picture: %v, want image among them", got)
	}
}
