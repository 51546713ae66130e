package search_test

import (
	"testing"

	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tools/search/internal/bench"
)

// TestQualityFloor guards the ranking against regressions on the shared
// retrieval sets. The figures themselves are printed by
// go run ./tools/search/cmd/searchbench.
func TestQualityFloor(t *testing.T) {
	shared, err := bench.SharedDir()
	if err != nil {
		t.Skipf("shared data not found (../shared next to the module root enables this test): %v", err)
	}
	sets, err := bench.Sets(shared)
	if err != nil {
		t.Skipf("no retrieval sets in ../shared/retrieval: %v", err)
	}
	for _, set := range sets {
		m := set.Evaluate(bench.IndexRanker(search.New(set.Docs)))
		t.Logf("%s: R@1 %.1f R@5 %.1f R@10 %.1f nDCG@10 %.1f server hit@5 %.1f server R@5 %.1f", set.Name, m.R1, m.R5, m.R10, m.NDCG10, m.ServerR5, m.ServerShareR5)
		f, ok := floors[set.Name]
		if !ok {
			continue
		}
		if m.NDCG10 < f.ndcg || m.ServerR5 < f.serverHit5 || m.ServerShareR5 < f.serverR5 {
			t.Errorf("%s: quality fell below the floor (nDCG@10 %.1f < %.1f, server hit@5 %.1f < %.1f or server R@5 %.1f < %.1f)",
				set.Name, m.NDCG10, f.ndcg, m.ServerR5, f.serverHit5, m.ServerShareR5, f.serverR5)
		}
	}
}

// Floors a little under the measured figures: a change that costs more is a
// regression to look at. MetaTool has no servers, so only nDCG counts there.
var floors = map[string]struct{ ndcg, serverHit5, serverR5 float64 }{
	"livemcpbench":   {49.5, 85.0, 73.5},
	"metatool":       {57.5, 0, 0},
	"metatool-multi": {69.0, 0, 0},
}
