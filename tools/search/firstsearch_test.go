package search_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tools/search/internal/bench"
)

// BenchmarkFirstSearch measures what a process's first search pays over
// a later one, on the shared catalogs (ALL.json, 282 tools) and the
// requests set's queries, cycled:
//
//   - tables: the WordNet and CC-CEDICT tables forgotten before each
//     search, as in a new process, then one query on a built index;
//   - han: the same with the set's queries in Chinese characters only,
//     which read the CC-CEDICT glosses;
//   - warm: the same query with what every query reads of the tables read
//     (each searched once first): tables minus warm is what reading them
//     costs;
//   - index: the index built, then one query: the rest of a first search;
//   - build: the index built alone: index minus build is what a query
//     costs on an index searched for the first time.
//
// The cpu-µs/op metric is the one to compare: the machine is shared.
func BenchmarkFirstSearch(b *testing.B) {
	_, sets := sharedSets(b)
	var set *bench.Set
	for _, s := range sets {
		if s.Name == "requests" {
			set = s
		}
	}
	if set == nil {
		b.Skip("no requests set: ../shared/catalogs/ALL.json enables this benchmark")
	}
	qs := make([]string, len(set.Queries))
	for i, q := range set.Queries {
		qs[i] = q.Query
	}
	ix := search.New(set.Docs)
	search1 := func(b *testing.B, ix *search.Index, q string) {
		if _, err := ix.Search(q, search.Options{Limit: 10}); err != nil {
			b.Fatal(err)
		}
	}
	var han []string
	for _, q := range qs {
		if strings.ContainsFunc(q, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			han = append(han, q)
		}
	}
	run := func(b *testing.B, each func(q string)) {
		for _, q := range qs { // what an earlier search of the process read
			search1(b, ix, q)
		}
		cpu := bench.CPUTime()
		i := 0
		for b.Loop() {
			each(qs[i%len(qs)])
			i++
		}
		reportCPU(b, cpu)
	}
	b.Run("tables", func(b *testing.B) {
		run(b, func(q string) { search.ResetTables(); search1(b, ix, q) })
	})
	b.Run("han", func(b *testing.B) {
		if len(han) == 0 {
			b.Skip("no query of the requests set has Chinese characters")
		}
		i := 0
		run(b, func(string) { search.ResetTables(); search1(b, ix, han[i%len(han)]); i++ })
	})
	b.Run("warm", func(b *testing.B) {
		run(b, func(q string) { search1(b, ix, q) })
	})
	b.Run("index", func(b *testing.B) {
		run(b, func(q string) { search1(b, search.New(set.Docs), q) })
	})
	b.Run("build", func(b *testing.B) {
		run(b, func(string) { search.New(set.Docs) })
	})
}
