package search

import (
	"hash/maphash"
	"math"
	"strings"
)

// analyseAll analyses docs, dropping nameless ones and repeated server and
// key pairs. One worker, kept for the index's life, does it all and numbers
// terms straight in the index's dictionary: its memo of analysed words stays
// warm across updates. Splitting across CPUs was tried: each worker then
// needs its own dictionary mapped onto the index's afterwards, which cost
// more CPU than it saved wall time on the 2-core machines this runs on.
func (ix *Index) analyseAll(docs []Doc) []*analysed { return ix.analyseAllWith(docs, true) }

// analyseAllWith is analyseAll, with the learned field or without it (see
// worker.addLearned).
func (ix *Index) analyseAllWith(docs []Doc, learned bool) []*analysed {
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
		ix.seq = &worker{cfg: ix.cfg, an: ix.an, learned: &ix.learned}
	}
	out := make([]*analysed, len(keep))
	all := make([]analysed, len(keep)) // one allocation, not one per tool
	if !learned {
		ix.seq.learned = nil
		defer func() { ix.seq.learned = &ix.learned }()
	}
	for i, d := range keep {
		out[i] = &all[i]
		ix.seq.analyse(d, out[i])
	}
	return out
}

// worker analyses documents with the index's analyzer and its own buffers.
type worker struct {
	cfg     Config
	now     int64 // Unix seconds, for fading learned requests; 0 is the time of each build
	an      *analyzer
	learned *learned
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
	schemas     map[schemaKey]int32 // schema -> index in schemaTerms
	schemaTerms [][]schemaTerm
	// frags memoises the terms of each piece of schema text, for the
	// schemas not seen whole: frags maps a piece to its index in fragIDs,
	// whose slices share fragBuf's arrays.
	frags   wordTable
	fragIDs [][]int32
	fragBuf []int32
	seq     []int32 // buffer of analysed.seq
	// glossed memoises the glosses of runs of Chinese text.
	glossed map[string]string
	pslot   []int32 // like slot, for one schema's terms

	termSlab  slab[termCount]
	seqSlab   slab[int32]
	paramSlab slab[schemaTerm]
	lslab     slab[learnedCount]
	lscratch  []learnedCount
	ts        []schemaTerm // the schema being analysed
	fragFn    func([]byte)
	reqs      reqScratch
}

// fragment adds the terms of one piece of schema text to w.ts, memoised.
func (w *worker) fragment(text []byte) {
	fh := wordHash(text)
	i, ok := w.frags.get(text, fh)
	if !ok {
		if w.frags.n >= maxFragMemo {
			w.frags, w.fragIDs, w.fragBuf = wordTable{}, nil, nil
		}
		start := len(w.fragBuf)
		termIDsOf(w.an, text, func(id int32) { w.fragBuf = append(w.fragBuf, id) })
		i = int32(len(w.fragIDs))
		w.frags.put(text, fh, i)
		w.fragIDs = append(w.fragIDs, w.fragBuf[start:len(w.fragBuf):len(w.fragBuf)])
	}
	for _, id := range w.fragIDs[i] {
		w.addParam(id)
	}
}

// addParam counts term id once more in the schema being analysed.
func (w *worker) addParam(id int32) {
	for int(id) >= len(w.pslot) {
		w.pslot = append(w.pslot, -1)
	}
	if i := w.pslot[id]; i >= 0 {
		if w.ts[i].n < math.MaxUint16 {
			w.ts[i].n++
		}
		return
	}
	w.pslot[id] = int32(len(w.ts))
	w.ts = append(w.ts, schemaTerm{id, 1})
}

// schemaKey identifies a schema by a 64-bit hash with a per-process random
// seed and its length. Keeping whole schemas as keys copied megabytes at
// 10,000 tools; two different schemas with the same key are about as likely
// as a failing memory bit (below 1e-11 for 10,000 distinct schemas), and
// would only swap one tool's parameter words.
type schemaKey struct {
	h uint64
	n int
}

var schemaSeed = maphash.MakeSeed()

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
	an := w.an
	splitWords(s, an.wbuf, func(b []byte) {
		id := an.wordTerm(b)
		if id < 0 {
			return
		}
		w.count(f, id)
		if n++; phrases && n <= maxPhraseTerms {
			if n > 1 {
				w.a.lens[FieldPhrase]++
			}
			w.a.seq = append(w.a.seq, id)
		}
	})
}

func (w *worker) analyse(d Doc, into *analysed) {
	*into = analysed{doc: d}
	w.a = into
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
	if w.cfg.Glosses && hasHan(d.Description) {
		w.text(w.glosses(d.Description), FieldDescription, false)
	}
	if w.cfg.Weight[FieldParams] > 0 && len(d.Schema) > 0 {
		w.params(d.Schema)
	}
	w.serverText(d)
	if w.learned != nil && w.cfg.Weight[FieldLearned] > 0 {
		w.learnedText(d)
	}
	a := w.a
	a.terms = w.termSlab.take(len(w.scratch))
	copy(a.terms, w.scratch)
	w.seq = a.seq
	a.seq = w.seqSlab.take(len(w.seq))
	copy(a.seq, w.seq)
	for _, tc := range w.scratch {
		w.slot[tc.id] = -1
	}
	w.a = nil
}

func (w *worker) glosses(s string) string {
	if w.glossed == nil || len(w.glossed) >= maxSchemaMemo {
		w.glossed = map[string]string{}
	}
	return glosses(s, w.glossed)
}

// slab hands out slices carved from big chunks: the analysis of 10,000 tools
// made 20,000 small allocations for their term lists otherwise. A chunk
// stays alive while any tool analysed into it is indexed; chunks are small
// enough for that not to matter.
type slab[T any] struct{ buf []T }

const slabChunk = 8192

func (s *slab[T]) take(n int) []T {
	if n == 0 {
		return nil
	}
	if cap(s.buf)-len(s.buf) < n {
		s.buf = make([]T, 0, max(slabChunk, n))
	}
	l := len(s.buf)
	s.buf = s.buf[:l+n]
	return s.buf[l : l+n : l+n]
}

// params counts the terms of a schema's text in the params field, once per
// distinct schema.
func (w *worker) params(raw []byte) {
	key := schemaKey{maphash.Bytes(schemaSeed, raw), len(raw)}
	if i, ok := w.schemas[key]; ok {
		for _, t := range w.schemaTerms[i] {
			w.countN(FieldParams, t.id, t.n)
		}
		return
	}
	w.ts = w.ts[:0]
	if w.fragFn == nil {
		w.fragFn = w.fragment // one closure for the worker's life
	}
	schemaFragments(raw, w.fragFn)
	ts := w.paramSlab.take(len(w.ts))
	copy(ts, w.ts)
	for _, t := range ts {
		w.pslot[t.id] = -1
		w.countN(FieldParams, t.id, t.n)
	}
	if w.schemas == nil || len(w.schemas) >= maxSchemaMemo {
		w.schemas, w.schemaTerms = map[schemaKey]int32{}, nil
	}
	w.schemas[key] = int32(len(w.schemaTerms))
	w.schemaTerms = append(w.schemaTerms, ts)
}

func (w *worker) serverText(d Doc) {
	if d.Server != w.lastServer || d.ServerDescription != w.lastServerDesc || w.serverIDs == nil {
		w.lastServer, w.lastServerDesc = d.Server, d.ServerDescription
		w.serverIDs = w.serverIDs[:0:0]
		collect := func(id int32) { w.serverIDs = append(w.serverIDs, id) }
		w.an.termIDs(d.Server, collect)
		w.an.termIDs(d.ServerDescription, collect)
		if w.cfg.Glosses && hasHan(d.ServerDescription) {
			w.an.termIDs(w.glosses(d.ServerDescription), collect)
		}
	}
	for _, id := range w.serverIDs {
		w.count(FieldServer, id)
	}
}

// addLearned adds the learned field to a tool analysed without it: the
// terms its text has get their learned counts in place, the others go to
// a.lterms. Copying every term into a merged list cost a tenth of the
// learned build, most of it writing fresh memory.
func (w *worker) addLearned(a *analysed) {
	if w.cfg.Weight[FieldLearned] <= 0 {
		return
	}
	rs := w.learned.requests(a.doc, w.cfg.LearnCap, &w.reqs, w.cfg, w.now)
	if len(rs) == 0 {
		return // nothing learned: the tool's terms stay as they are
	}
	w.a = a
	w.noteRequests(rs)
	// slot[id] < nt: term id is a.terms[slot[id]]; from nt: it is
	// lscratch[slot[id]-nt].
	nt := int32(len(a.terms))
	for i, tc := range a.terms {
		for int(tc.id) >= len(w.slot) {
			w.slot = append(w.slot, -1)
		}
		w.slot[tc.id] = int32(i)
	}
	ls := w.lscratch[:0]
	n := 0
	for _, r := range rs {
		for _, id := range w.learned.req(r) {
			for int(id) >= len(w.slot) {
				w.slot = append(w.slot, -1)
			}
			n++
			switch p := w.slot[id]; {
			case p < 0:
				w.slot[id] = nt + int32(len(ls))
				ls = append(ls, newLearnedCount(id, 1))
			case p < nt:
				if tf := &a.terms[p].tf[FieldLearned]; *tf < math.MaxUint16 {
					*tf++
				}
			default:
				if lc := &ls[p-nt]; lc.n < math.MaxUint16 {
					lc.n++
				}
			}
		}
	}
	a.lens[FieldLearned] += float32(n)
	a.lterms = w.lslab.take(len(ls))
	copy(a.lterms, ls)
	for _, tc := range a.terms {
		w.slot[tc.id] = -1
	}
	for _, lc := range ls {
		w.slot[lc.id()] = -1
	}
	w.lscratch = ls
	w.a = nil
}

// learnedText counts the terms of d's learned requests in FieldLearned.
func (w *worker) learnedText(d Doc) {
	w.countLearned(w.learned.requests(d, w.cfg.LearnCap, &w.reqs, w.cfg, w.now))
}

// noteRequests records on the tool being analysed how many learned
// requests rs it has, the trust they earn, and which they are.
func (w *worker) noteRequests(rs []int32) {
	w.a.uses = int32(len(rs))
	w.a.trust = trust(w.cfg, w.reqs.eff)
	if w.cfg.Neighbours > 0 && len(rs) > 0 {
		w.a.reqs = w.seqSlab.take(len(rs))
		copy(w.a.reqs, rs)
	}
}

// countLearned counts the terms of the learned requests rs in FieldLearned.
func (w *worker) countLearned(rs []int32) {
	l := w.learned
	w.noteRequests(rs)
	for _, r := range rs {
		for _, id := range l.req(r) {
			w.count(FieldLearned, id)
		}
	}
}
