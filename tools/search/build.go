package search

import (
	"math"
	"runtime"
	"strings"
	"sync"
)

// parallelMin is the number of tools from which analysis is split across
// CPUs: below it the goroutines cost more than they save.
const parallelMin = 512

// analyseAll analyses docs, dropping nameless ones and repeated server and
// key pairs. Big inputs are analysed in parallel, each worker numbering
// terms on its own; the numbers are then mapped onto the index's
// dictionary, which costs one lookup per distinct term per worker rather
// than one per word. Small inputs (one server's update) go through a worker
// kept for the index's life, whose memo of stemmed words stays warm.
func (ix *Index) analyseAll(docs []Doc) []*analysed {
	type key struct{ server, key string }
	seen := map[key]bool{}
	keep := docs[:0:0]
	for _, d := range docs {
		k := key{d.Server, d.Key()}
		if strings.TrimSpace(d.Name) == "" || seen[k] {
			continue
		}
		seen[k] = true
		keep = append(keep, d)
	}
	out := make([]*analysed, len(keep))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(keep)/parallelMin))
	if workers == 1 {
		if ix.seq == nil {
			ix.seq = &worker{cfg: ix.cfg, an: newAnalyzer(ix.cfg.Stemmer)}
		}
		for i, d := range keep {
			out[i] = ix.seq.analyse(d)
		}
		ix.seq.mapInto(ix.an, out)
		return out
	}
	chunk := (len(keep) + workers - 1) / workers
	ws := make([]*worker, workers)
	var wg sync.WaitGroup
	for w := range ws {
		ws[w] = &worker{cfg: ix.cfg, an: newAnalyzer(ix.cfg.Stemmer)}
		lo, hi := min(w*chunk, len(keep)), min((w+1)*chunk, len(keep))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				out[i] = ws[w].analyse(keep[i])
			}
		}()
	}
	wg.Wait()
	for w, wk := range ws {
		wk.mapInto(ix.an, out[min(w*chunk, len(keep)):min((w+1)*chunk, len(keep))])
	}
	return out
}

// mapInto renumbers the terms of docs from the worker's numbering to
// dict's.
func (w *worker) mapInto(dict *analyzer, docs []*analysed) {
	for id := len(w.remap); id < len(w.an.termStr); id++ {
		w.remap = append(w.remap, dict.intern(w.an.termStr[id]))
	}
	for _, a := range docs {
		for i := range a.terms {
			a.terms[i].id = w.remap[a.terms[i].id]
		}
	}
}

// worker analyses documents with its own analyzer and buffers.
type worker struct {
	cfg Config
	an  *analyzer
	// slot[id] is the position of term id in scratch, or -1.
	slot    []int32
	scratch []termCount
	a       *analysed
	// The server text of the last tool: every tool of a server shares it,
	// so its terms are worked out once per server.
	lastServer, lastServerDesc string
	serverIDs                  []int32
	remap                      []int32 // worker term number -> index term number
}

func (w *worker) count(f int, id int32) {
	for int(id) >= len(w.slot) {
		w.slot = append(w.slot, -1)
	}
	p := w.slot[id]
	if p < 0 {
		p = int32(len(w.scratch))
		w.slot[id] = p
		w.scratch = append(w.scratch, termCount{id: id})
	}
	if tf := &w.scratch[p].tf[f]; *tf < math.MaxUint16 {
		*tf++
	}
	w.a.lens[f]++
}

// maxPhraseTerms bounds the terms of a description that form phrases: the
// first sentences say what a tool does, and pairs are the most numerous
// terms of the index.
const maxPhraseTerms = 32

// text counts the terms of s in field f and, when phrases are on, the
// pairs of adjacent terms among the first maxPhraseTerms in the phrase
// field, in one pass.
func (w *worker) text(s string, f int, phrases bool) {
	prev := int32(-1)
	n := 0
	w.an.termIDs(s, func(id int32) {
		w.count(f, id)
		if n++; !phrases || n > maxPhraseTerms {
			return
		}
		if prev >= 0 {
			k := uint64(prev)<<32 | uint64(id)
			pid, ok := w.an.pairID[k]
			if !ok {
				pid = w.an.intern(w.an.termStr[prev] + " " + w.an.termStr[id])
				w.an.pairID[k] = pid
			}
			w.count(FieldPhrase, pid)
		}
		prev = id
	})
}

func (w *worker) analyse(d Doc) *analysed {
	w.a = &analysed{doc: d}
	w.scratch = w.scratch[:0]
	phrases := w.cfg.Weight[FieldPhrase] > 0
	fn, fp := FieldName, FieldParams
	w.text(d.Name, fn, phrases)
	if w.cfg.Joins {
		w.an.joinIDs(d.Name, func(id int32) { w.count(fn, id) })
	}
	w.text(d.Description, FieldDescription, phrases)
	if w.cfg.Weight[FieldParams] > 0 {
		w.text(schemaText(d.Schema), fp, false)
	}
	w.serverText(d)
	a := w.a
	a.terms = make([]termCount, len(w.scratch))
	copy(a.terms, w.scratch)
	for _, tc := range w.scratch {
		w.slot[tc.id] = -1
	}
	w.a = nil
	return a
}

func (w *worker) serverText(d Doc) {
	if d.Server != w.lastServer || d.ServerDescription != w.lastServerDesc || w.serverIDs == nil {
		w.lastServer, w.lastServerDesc = d.Server, d.ServerDescription
		w.serverIDs = w.serverIDs[:0:0]
		collect := func(id int32) { w.serverIDs = append(w.serverIDs, id) }
		w.an.termIDs(d.Server, collect)
		w.an.termIDs(d.ServerDescription, collect)
	}
	for _, id := range w.serverIDs {
		w.count(FieldServer, id)
	}
}
