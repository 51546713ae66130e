package search_test

import (
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tools/search/internal/bench"
)

// TestQualityFloor guards the ranking against regressions on the shared
// retrieval set. The figures themselves are printed by
// go run ./tools/search/cmd/searchbench.
func TestQualityFloor(t *testing.T) {
	shared, err := bench.SharedDir()
	if err != nil {
		t.Skipf("shared data not found: %v", err)
	}
	set, err := bench.LoadSet(filepath.Join(shared, "retrieval", "livemcpbench"))
	if err != nil {
		t.Skipf("livemcpbench not readable: %v", err)
	}
	m := set.Evaluate(bench.IndexRanker(search.New(set.Docs)))
	t.Logf("R@1 %.1f R@5 %.1f R@10 %.1f nDCG@10 %.1f server hit@5 %.1f server R@5 %.1f", m.R1, m.R5, m.R10, m.NDCG10, m.ServerR5, m.ServerShareR5)
	if m.NDCG10 < floorNDCG || m.ServerR5 < floorServerHit5 || m.ServerShareR5 < floorServerR5 {
		t.Errorf("quality fell below the floor (nDCG@10 %.1f < %.1f, server hit@5 %.1f < %.1f or server R@5 %.1f < %.1f)",
			m.NDCG10, floorNDCG, m.ServerR5, floorServerHit5, m.ServerShareR5, floorServerR5)
	}
}

// Floors a little under the measured figures: a change that costs more is a
// regression to look at.
const (
	floorNDCG       = 48.5
	floorServerHit5 = 85.0
	floorServerR5   = 75.5
)
