package search_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tools/search/internal/bench"
)

// catalog is an n-tool catalog grown from the real ones in
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
	cpu := bench.CPUTime()
	for b.Loop() {
		search.New(docs)
	}
	reportCPU(b, cpu)
}

// BenchmarkBuild10kUniqueSchemas is Build10k with no two schemas alike. The
// generated catalog copies real servers, so its schemas repeat and the
// index's memo of analysed schemas does most of their work; this is the
// cost when it cannot.
func BenchmarkBuild10kUniqueSchemas(b *testing.B) {
	docs := catalog(b, 10000)
	for i := range docs {
		if s := docs[i].Schema; len(s) > 1 && s[0] == '{' {
			docs[i].Schema = append([]byte(fmt.Sprintf(`{"$comment":"copy %d",`, i)), s[1:]...)
		}
	}
	b.ResetTimer()
	cpu := bench.CPUTime()
	for b.Loop() {
		search.New(docs)
	}
	reportCPU(b, cpu)
}

// BenchmarkSearch10k times one query at 10,000 tools; the queries cycle
// through the benchmark's task descriptions and short keyword queries.
func BenchmarkSearch10k(b *testing.B) {
	docs := catalog(b, 10000)
	ix := search.New(docs)
	shared, _ := bench.SharedDir()
	set, _ := bench.LoadSet(shared + "/retrieval/livemcpbench")
	qs := bench.Queries(set, docs)
	b.ResetTimer()
	cpu := bench.CPUTime()
	i := 0
	defer func() { reportCPU(b, cpu) }()
	for b.Loop() {
		if _, err := ix.Search(qs[i%len(qs)], search.Options{Limit: 10}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkReplaceServer10k times swapping one server's tools in a
// 10,000-tool index, as after a tools/list_changed notification.
func BenchmarkReplaceServer10k(b *testing.B) {
	docs := catalog(b, 10000)
	ix := search.New(docs)
	srv := docs[len(docs)/2].Server
	var own []search.Doc
	for _, d := range docs {
		if d.Server == srv {
			own = append(own, d)
		}
	}
	b.ResetTimer()
	cpu := bench.CPUTime()
	for b.Loop() {
		ix.ReplaceServer(srv, own)
	}
	reportCPU(b, cpu)
}

// reportCPU adds CPU time per operation: on a busy shared machine wall time
// includes waiting for a core, CPU time does not.
func reportCPU(b *testing.B, since time.Duration) {
	if used := bench.CPUTime() - since; used > 0 && b.N > 0 {
		b.ReportMetric(float64(used.Microseconds())/float64(b.N), "cpu-µs/op")
	}
}

// BenchmarkSearch10kStages is Search10k with one stage of the query off at
// a time, to show what each costs.
func BenchmarkSearch10kStages(b *testing.B) {
	docs := catalog(b, 10000)
	shared, _ := bench.SharedDir()
	set, _ := bench.LoadSet(shared + "/retrieval/livemcpbench")
	qs := bench.Queries(set, docs)
	for _, st := range []struct {
		name string
		f    func(*search.Config)
	}{
		{"all", func(*search.Config) {}},
		{"no-chain", func(c *search.Config) { c.Chain = 0 }},
		{"no-cues", func(c *search.Config) { c.Cues, c.PathStems = 0, false }},
		{"no-steps", func(c *search.Config) { c.StepSlot = 0 }},
		{"no-glosses", func(c *search.Config) { c.Glosses = false }},
		{"no-feedback", func(c *search.Config) { c.FeedbackDocs = 0 }},
	} {
		cfg := search.DefaultConfig()
		st.f(&cfg)
		ix := search.NewWithConfig(docs, cfg)
		b.Run(st.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := ix.Search(qs[i%len(qs)], search.Options{Limit: 10}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// learnedUses is 100,000 learned pairs over docs, or a skip.
func learnedUses(b *testing.B, docs []search.Doc) []search.Use {
	b.Helper()
	shared, sets := sharedSets(b)
	return bench.SyntheticUses(docs, bench.RequestPool(shared, sets), 100000, 1)
}

// BenchmarkBuild10kLearned100k is Build10k with 100,000 learned (request,
// tool) pairs: a long-used agent's store, its requests read analysed, as a
// start reads them (bench.Analysed).
func BenchmarkBuild10kLearned100k(b *testing.B) {
	docs := catalog(b, 10000)
	uses, stored := bench.Analysed(learnedUses(b, docs), search.DefaultConfig().Stemmer)
	b.ResetTimer()
	cpu := bench.CPUTime()
	for b.Loop() {
		search.NewLearnedAnalysed(docs, search.DefaultConfig(), uses, stored)
	}
	reportCPU(b, cpu)
}

// BenchmarkBuild10kLearned100kText is Build10kLearned100k with the
// requests' text analysed: the first start after the analysis changed
// (search.AnalysisVersion), or pairs given as text (--history).
func BenchmarkBuild10kLearned100kText(b *testing.B) {
	docs := catalog(b, 10000)
	uses := learnedUses(b, docs)
	b.ResetTimer()
	cpu := bench.CPUTime()
	for b.Loop() {
		search.NewLearned(docs, search.DefaultConfig(), uses)
	}
	reportCPU(b, cpu)
}

// BenchmarkSearch10kLearned100k is Search10k over that index.
func BenchmarkSearch10kLearned100k(b *testing.B) {
	docs := catalog(b, 10000)
	ix := search.NewLearned(docs, search.DefaultConfig(), learnedUses(b, docs))
	shared, _ := bench.SharedDir()
	set, _ := bench.LoadSet(shared + "/retrieval/livemcpbench")
	qs := bench.Queries(set, docs)
	b.ResetTimer()
	cpu := bench.CPUTime()
	i := 0
	defer func() { reportCPU(b, cpu) }()
	for b.Loop() {
		if _, err := ix.Search(qs[i%len(qs)], search.Options{Limit: 10}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
