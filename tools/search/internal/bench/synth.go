package bench

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/agent-dev/agent/tools/search"
)

// RealDocs loads every real tool the shared folder has: the MCP catalogs
// (one server per file) and the livemcpbench tools.
func RealDocs(shared string) ([]search.Doc, error) {
	var all []search.Doc
	files, _ := filepath.Glob(filepath.Join(shared, "catalogs", "*.json"))
	for _, f := range files {
		if filepath.Base(f) == "ALL.json" {
			continue // the merge of the others
		}
		docs, err := search.LoadCatalogFile(f)
		if err != nil {
			return nil, err
		}
		all = append(all, docs...)
	}
	docs, err := search.LoadCatalogFile(filepath.Join(shared, "retrieval", "livemcpbench", "tools.jsonl"))
	if err == nil {
		all = append(all, docs...)
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no catalogs under %s", shared)
	}
	return all, nil
}

// Synthetic grows real tools to n by copying them onto renamed servers and
// perturbing names and descriptions: each copy gets a server suffix, a name
// prefix and a few description words swapped with words of other tools, so
// the vocabulary and postings grow the way a big real catalog's would
// instead of repeating one catalog's terms.
func Synthetic(real []search.Doc, n int, seed uint64) []search.Doc {
	r := rand.New(rand.NewPCG(seed, 42))
	var vocab []string
	for _, d := range real {
		vocab = append(vocab, strings.Fields(d.Description)...)
	}
	prefixes := []string{"", "cloud", "team", "pro", "lite", "org", "v2", "ext", "my", "corp"}
	out := make([]search.Doc, 0, n)
	for copyN := 0; len(out) < n; copyN++ {
		for _, d := range real {
			if len(out) >= n {
				break
			}
			if copyN > 0 {
				p := prefixes[r.IntN(len(prefixes))]
				d.Server = fmt.Sprintf("%s-%d", d.Server, copyN)
				d.Name = strings.TrimPrefix(fmt.Sprintf("%s_%s_%d", p, d.Name, copyN), "_")
				d.ID = ""
				ws := strings.Fields(d.Description)
				for i := 0; i < len(ws)/5; i++ {
					ws[r.IntN(len(ws))] = vocab[r.IntN(len(vocab))]
				}
				d.Description = strings.Join(ws, " ")
			}
			out = append(out, d)
		}
	}
	return out
}

// Latency is a latency distribution.
type Latency struct{ P50, P99, Max time.Duration }

// MeasureLatency runs each query once (after one warm-up pass) and returns
// the distribution of single-query times.
func MeasureLatency(ix *search.Index, queries []string) Latency {
	for _, q := range queries {
		_, _ = ix.Search(q, search.Options{Limit: 10})
	}
	ds := make([]time.Duration, 0, len(queries))
	for _, q := range queries {
		t := time.Now()
		_, _ = ix.Search(q, search.Options{Limit: 10})
		ds = append(ds, time.Since(t))
	}
	slices.Sort(ds)
	at := func(p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
	return Latency{P50: at(0.50), P99: at(0.99), Max: ds[len(ds)-1]}
}

// Footprint is the heap an index built from docs keeps alive, in bytes: its
// own structures, not the docs' strings it shares with the caller.
func Footprint(docs []search.Doc) (*search.Index, uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ix := search.New(docs)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if after.HeapAlloc < before.HeapAlloc {
		return ix, 0
	}
	return ix, after.HeapAlloc - before.HeapAlloc
}

// Queries returns the set's query texts plus short keyword queries made of
// tool names, the two shapes of query a model sends.
func Queries(set *Set, docs []search.Doc) []string {
	var qs []string
	if set != nil {
		for _, q := range set.Queries {
			qs = append(qs, q.Query)
		}
	}
	for i := 0; i < len(docs) && i < 2000; i += 20 {
		qs = append(qs, strings.ReplaceAll(docs[i].Name, "_", " "))
	}
	return qs
}

// SyntheticUses makes n learned (request, tool) pairs over docs: requests
// drawn from pool (real requests: the shared sets' queries and history),
// each with a word of another request added so repeats are rarer, tools
// drawn at random. They stand for a long-used agent's store when timing
// the learned field.
func SyntheticUses(docs []search.Doc, pool []string, n int, seed uint64) []search.Use {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]search.Use, n)
	for i := range out {
		q := pool[r.IntN(len(pool))]
		ws := strings.Fields(pool[r.IntN(len(pool))])
		if len(ws) > 0 {
			q += " " + ws[r.IntN(len(ws))]
		}
		out[i] = search.Use{Query: q, Tool: docs[r.IntN(len(docs))].Key()}
	}
	return out
}

// RequestPool is the requests of the shared sets and of metatool's history,
// for SyntheticUses.
func RequestPool(shared string, sets []*Set) []string {
	var pool []string
	for _, s := range sets {
		for _, q := range s.Queries {
			pool = append(pool, q.Query)
		}
	}
	if hist, err := LoadHistory(filepath.Join(shared, "retrieval", "metatool", "history.jsonl")); err == nil {
		for _, u := range hist {
			pool = append(pool, u.Query)
		}
	}
	return pool
}

// FootprintLearned is Footprint with uses learned (analysed under stored
// when it is not nil).
func FootprintLearned(docs []search.Doc, uses []search.Use, stored *search.Analysis) (*search.Index, uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ix := search.NewLearnedAnalysed(docs, search.DefaultConfig(), uses, stored)
	runtime.GC()
	runtime.ReadMemStats(&after)
	// The uses stay live to the end: freed in between, they would be
	// taken off the index's size.
	runtime.KeepAlive(uses)
	runtime.KeepAlive(stored)
	if after.HeapAlloc < before.HeapAlloc {
		return ix, 0
	}
	return ix, after.HeapAlloc - before.HeapAlloc
}

// Analysed is uses as the store hands them to a start (store.LearnedAnalysed):
// each request's terms (search.RequestTerms under stemmer) as uvarint
// numbers into a dictionary numbered from 1 in the order terms were first
// learned, as the store's search_terms table numbers them, and no text.
func Analysed(uses []search.Use, stemmer string) ([]search.Use, *search.Analysis) {
	an := &search.Analysis{Version: search.AnalysisVersion(stemmer), Terms: []string{""}}
	num := map[string]uint64{}
	out := make([]search.Use, len(uses))
	for i, u := range uses {
		b := []byte{}
		for _, t := range search.RequestTerms(stemmer, u.Query) {
			n, ok := num[t]
			if !ok {
				n = uint64(len(an.Terms))
				num[t] = n
				an.Terms = append(an.Terms, t)
			}
			b = binary.AppendUvarint(b, n)
		}
		out[i] = search.Use{Tool: u.Tool, At: u.At, Analysed: b}
	}
	return out, an
}
