package search

import (
	"math"
	"strings"
)

// analyseAll analyses docs, dropping nameless ones and repeated server and
// key pairs. One worker, kept for the index's life, does it all and numbers
// terms straight in the index's dictionary: its memo of analysed words stays
// warm across updates. Splitting across CPUs was tried: each worker then
// needs its own dictionary mapped onto the index's afterwards, which cost
// more CPU than it saved wall time on the 2-core machines this runs on.
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
	if ix.seq == nil {
		ix.seq = &worker{cfg: ix.cfg, an: ix.an}
	}
	out := make([]*analysed, len(keep))
	for i, d := range keep {
		out[i] = ix.seq.analyse(d)
	}
	return out
}

// worker analyses documents with the index's analyzer and its own buffers.
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
	// schemas memoises the parameter terms of each schema seen: tools of
	// one kind share schemas ({path}, {url}, {query, limit}), and a catalog
	// that has one server twice under two names shares all of them.
	schemas map[string][]schemaTerm
	frags   map[string][]int32 // term ids of each schema text piece
	seq     []int32            // buffer of analysed.seq
	pslot   []int32            // like slot, for one schema's terms
}

// schemaTerm is one term of a schema's text and how often it occurs.
type schemaTerm struct {
	id int32
	n  uint16
}

// maxSchemaMemo and maxFragMemo bound the memos of the worker kept for an
// index's life.
const (
	maxSchemaMemo = 4096
	maxFragMemo   = 1 << 16
)

func (w *worker) count(f int, id int32) { w.countN(f, id, 1) }

func (w *worker) countN(f int, id int32, n uint16) {
	for int(id) >= len(w.slot) {
		w.slot = append(w.slot, -1)
	}
	p := w.slot[id]
	if p < 0 {
		p = int32(len(w.scratch))
		w.slot[id] = p
		w.scratch = append(w.scratch, termCount{id: id})
	}
	tf := &w.scratch[p].tf[f]
	*tf = uint16(min(int(*tf)+int(n), math.MaxUint16))
	w.a.lens[f] += float32(n)
}

// maxPhraseTerms bounds the terms of a description that form phrases: the
// first sentences say what a tool does, and pairs are the most numerous
// terms of the index.
const maxPhraseTerms = 32

// text counts the terms of s in field f and, when phrases are on, keeps its
// first maxPhraseTerms terms in order: pairs of adjacent terms (the phrase
// field) are matched against them at query time. Numbering every pair at
// index time made pairs the largest part of the vocabulary and of build time.
func (w *worker) text(s string, f int, phrases bool) {
	n := 0
	if phrases && len(w.a.seq) > 0 {
		w.a.seq = append(w.a.seq, -1) // no pair across fields
	}
	w.an.termIDs(s, func(id int32) {
		w.count(f, id)
		if n++; phrases && n <= maxPhraseTerms {
			if n > 1 {
				w.a.lens[FieldPhrase]++
			}
			w.a.seq = append(w.a.seq, id)
		}
	})
}

func (w *worker) analyse(d Doc) *analysed {
	w.a = &analysed{doc: d}
	w.scratch = w.scratch[:0]
	w.seq = w.seq[:0]
	w.a.seq = w.seq
	phrases := w.cfg.Weight[FieldPhrase] > 0
	fn := FieldName
	w.text(d.Name, fn, phrases)
	if w.cfg.Joins {
		w.an.joinIDs(d.Name, func(id int32) { w.count(fn, id) })
	}
	w.text(d.Description, FieldDescription, phrases)
	if w.cfg.Weight[FieldParams] > 0 && len(d.Schema) > 0 {
		w.params(d.Schema)
	}
	w.serverText(d)
	a := w.a
	a.terms = make([]termCount, len(w.scratch))
	copy(a.terms, w.scratch)
	w.seq = a.seq
	a.seq = append([]int32(nil), a.seq...)
	for _, tc := range w.scratch {
		w.slot[tc.id] = -1
	}
	w.a = nil
	return a
}

// params counts the terms of a schema's text in the params field, once per
// distinct schema.
func (w *worker) params(raw []byte) {
	ts, ok := w.schemas[string(raw)]
	if !ok {
		add := func(id int32) {
			for int(id) >= len(w.pslot) {
				w.pslot = append(w.pslot, -1)
			}
			if i := w.pslot[id]; i >= 0 {
				if ts[i].n < math.MaxUint16 {
					ts[i].n++
				}
				return
			}
			w.pslot[id] = int32(len(ts))
			ts = append(ts, schemaTerm{id, 1})
		}
		schemaFragments(raw, func(text []byte) {
			ids, ok := w.frags[string(text)]
			if !ok {
				termIDsOf(w.an, text, func(id int32) { ids = append(ids, id) })
				if w.frags == nil || len(w.frags) >= maxFragMemo {
					w.frags = map[string][]int32{}
				}
				w.frags[string(text)] = ids
			}
			for _, id := range ids {
				add(id)
			}
		})
		for _, t := range ts {
			w.pslot[t.id] = -1
		}
		if w.schemas == nil || len(w.schemas) >= maxSchemaMemo {
			w.schemas = map[string][]schemaTerm{}
		}
		w.schemas[string(raw)] = ts
	}
	for _, t := range ts {
		w.countN(FieldParams, t.id, t.n)
	}
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
