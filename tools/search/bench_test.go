package search_test

import (
	"testing"

	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tools/search/internal/bench"
)

// catalog10k is a 10,000-tool catalog grown from the real ones in
// ../shared, or a skip when they are absent.
func catalog(b *testing.B, n int) []search.Doc {
	b.Helper()
	shared, err := bench.SharedDir()
	if err != nil {
		b.Skipf("shared data not found: %v", err)
	}
	real, err := bench.RealDocs(shared)
	if err != nil {
		b.Skipf("no catalogs: %v", err)
	}
	return bench.Synthetic(real, n, 1)
}

func BenchmarkBuild10k(b *testing.B) {
	docs := catalog(b, 10000)
	b.ResetTimer()
	for b.Loop() {
		search.New(docs)
	}
}
