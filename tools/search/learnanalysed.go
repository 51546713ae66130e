package search

// A store keeps each learned request analysed: its terms as numbers into a
// dictionary (Analysis), with the version of the analysis that made them.
// This file reads those numbers back into an index's own numbering, and
// analyses the requests that come as text, in parallel.

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Analysis is the term dictionary of uses whose requests come analysed
// (Use.Analysed). A store keeps each learned request analysed, written
// once when it is learned: a start then reads term numbers instead of
// splitting and analysing 100,000 requests again.
type Analysis struct {
	// Version is the AnalysisVersion the requests were analysed under.
	// Under another version a use's Analysed is ignored and its Query
	// analysed: stale terms are never indexed.
	Version string
	// Terms[n] is the term numbered n.
	Terms []string
}

// analysisRevision is bumped whenever splitting or stop words change what
// RequestTerms gives (TestRequestTermsGolden fails until it is): requests
// analysed before are then analysed again.
const analysisRevision = 1

// AnalysisVersion names how RequestTerms analyses a request under stemmer
// (Config.Stemmer): the revision, the stemmer and a digest of the stop
// words and length limits. A store keeps it beside each analysed request.
func AnalysisVersion(stemmer string) string {
	return fmt.Sprintf("%d/%s/%08x", analysisRevision, stemmer, analysisDigest())
}

var analysisDigest = sync.OnceValue(func() uint32 {
	ws := make([]string, 0, len(stopWords))
	for w := range stopWords {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	h := fnv.New32a()
	fmt.Fprintf(h, "%d %d %s", maxQueryBytes, maxTokenLen, strings.Join(ws, " "))
	return h.Sum32()
})

// RequestTerms is a learned request's terms as the index learns it under
// stemmer (Config.Stemmer), in order: what a store keeps analysed.
func RequestTerms(stemmer, query string) []string {
	a := analyzer{stem: stemmerFunc(stemmer)}
	var out []string
	a.terms(truncate(query, maxQueryBytes), func(t string) { out = append(out, t) })
	return out
}

// sameRequest reports whether two uses in a row are one search's: the same
// request, by its text or its stored analysis.
func sameRequest(a, b *Use) bool {
	if a.Analysed != nil || b.Analysed != nil {
		return a.Analysed != nil && b.Analysed != nil && string(a.Analysed) == string(b.Analysed)
	}
	return a.Query == b.Query
}

// dictRemap maps an Analysis's term numbers onto an index's, each term
// interned the first time a request has it: in the order the requests'
// text would have numbered them.
type dictRemap struct {
	terms []string
	to    []int32 // -1: not yet interned
}

func newDictRemap(a *Analysis) *dictRemap {
	if a == nil {
		return nil
	}
	to := make([]int32, len(a.Terms))
	for i := range to {
		to[i] = -1
	}
	return &dictRemap{a.Terms, to}
}

// decodeTerms appends the dictionary numbers of an analysed request to
// out; ok is false when it is malformed (a bad uvarint, a number past the
// dictionary or of no term).
func decodeTerms(b []byte, terms []string, out []int32) (_ []int32, ok bool) {
	for len(b) > 0 {
		var n uint64
		if b[0] < 0x80 {
			n, b = uint64(b[0]), b[1:] // one byte, without a call
		} else {
			k := 0
			n, k = binary.Uvarint(b)
			if k <= 0 {
				return out, false
			}
			b = b[k:]
		}
		if n >= uint64(len(terms)) || terms[n] == "" {
			return out, false
		}
		out = append(out, int32(n))
	}
	return out, true
}

// index turns dictionary numbers into an's term numbers in place.
func (m *dictRemap) index(an *analyzer, ids []int32) {
	for k, d := range ids {
		t := m.to[d]
		if t < 0 {
			t = an.intern(m.terms[d])
			m.to[d] = t
		}
		ids[k] = t
	}
}

// parallelUses is how many uses at once are analysed on every CPU.
const parallelUses = 8192

// usesAnalysis is the requests of uses analysed by workers, each with its
// own analyzer: term numbers of the worker's analyzer, until remapUses.
type usesAnalysis struct {
	out   [][]int32
	chunk int
	ans   []*analyzer
}

// analyseUses analyses the requests of uses on every CPU, each worker with
// its own analyzer: a store of 100,000 learned pairs is read
// at every start. It touches no shared state, so it runs beside the
// analysis of the catalog. A use that comes analysed (m is not nil then)
// is only decoded, into m's dictionary numbers.
func analyseUses(uses []Use, m *dictRemap) *usesAnalysis {
	out := make([][]int32, len(uses))
	workers := min(runtime.GOMAXPROCS(0), 4)
	chunk := (len(uses) + workers - 1) / workers
	ans := make([]*analyzer, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, len(uses))
		if lo >= hi {
			break
		}
		// No stemmer: the workers number words, and remapUses stems each
		// distinct word once through an's memo, where the catalog's words
		// already are (each worker stemmed its whole vocabulary before).
		wa := &analyzer{wordID: &wordTable{}, termID: map[string]int32{}, wbuf: make([]byte, 0, 64)}
		ans[w] = wa
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sl slab[int32]
			var buf []int32
			for i := lo; i < hi; i++ {
				if i > lo && sameRequest(&uses[i], &uses[i-1]) {
					continue // analysed once; see addAnalysed
				}
				buf = buf[:0]
				if uses[i].Analysed != nil {
					var ok bool
					if buf, ok = decodeTerms(uses[i].Analysed, m.terms, buf); !ok {
						buf = buf[:0] // malformed: learned as no terms, like a request of stop words
					}
				} else {
					wa.termIDs(truncate(uses[i].Query, maxQueryBytes), func(id int32) { buf = append(buf, id) })
				}
				ts := sl.take(len(buf))
				copy(ts, buf)
				out[i] = ts
			}
		}()
	}
	wg.Wait()
	return &usesAnalysis{out, chunk, ans}
}

// remapUses maps the workers' term numbers onto an's, and then those of
// the uses that came analysed (through m).
func remapUses(ua *usesAnalysis, an *analyzer, uses []Use, m *dictRemap) [][]int32 {
	for w, wa := range ua.ans {
		if wa == nil {
			continue
		}
		remap := make([]int32, len(wa.termStr))
		buf := make([]byte, 0, 64)
		for id, t := range wa.termStr {
			buf = append(buf[:0], t...)
			remap[id] = an.wordTerm(buf) // never -1: the workers leave stop words out too
		}
		for i := w * ua.chunk; i < min((w+1)*ua.chunk, len(ua.out)); i++ {
			if uses[i].Analysed != nil {
				continue
			}
			for k, id := range ua.out[i] {
				ua.out[i][k] = remap[id]
			}
		}
	}
	if m != nil {
		// In order of the uses: each term is numbered where its first
		// request is, as when the requests' text is analysed.
		for i := range uses {
			if uses[i].Analysed != nil {
				m.index(an, ua.out[i])
			}
		}
	}
	return ua.out
}

// usable is uses with the dictionary their analyses are read through, or,
// when stored is missing or of another version than stemmer's, uses
// without their analyses (Query is analysed instead).
func usable(uses []Use, stored *Analysis, stemmer string) ([]Use, *dictRemap) {
	if stored != nil && stored.Version == AnalysisVersion(stemmer) {
		return uses, newDictRemap(stored)
	}
	if !slices.ContainsFunc(uses, func(u Use) bool { return u.Analysed != nil }) {
		return uses, nil
	}
	uses = slices.Clone(uses)
	for i := range uses {
		uses[i].Analysed = nil
	}
	return uses, nil
}
