package search_test

import (
	"slices"
	"testing"

	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tools/search/internal/bench"
)

// TestFirstPageIndependentOfLimit: the first k tools of a search do not
// depend on how many were asked for. A model asks for 5, agent tools search
// shows 10 and the benchmarks read 50; when the second pass reordered
// max(limit, 30) candidates, the CLI and searchbench measured different
// figures on the same set. BFCL's requests over its 672 functions, with
// the other half's requests learned, so the neighbours vote too.
func TestFirstPageIndependentOfLimit(t *testing.T) {
	set, err := bench.LoadSetFiles("bfcl", "testdata/bfcl/tools.jsonl", "testdata/bfcl/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	even, odd := set.Split()
	for _, ix := range []*search.Index{search.New(set.Docs), search.NewLearned(set.Docs, search.DefaultConfig(), bench.GoldUses(even))} {
		for _, q := range odd.Queries[:200] {
			ref, err := ix.Search(q.Query, search.Options{Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []int{1, 5, 10, 20, 100} {
				hits, err := ix.Search(q.Query, search.Options{Limit: k})
				if err != nil {
					t.Fatal(err)
				}
				n := min(k, len(ref))
				if len(hits) < n || !slices.Equal(names(hits[:n]), names(ref[:n])) {
					t.Fatalf("%q: the first %d of limit %d are\n%v\nand of limit 50\n%v", q.Query, n, k, names(hits[:min(n, len(hits))]), names(ref[:n]))
				}
			}
		}
	}
}
