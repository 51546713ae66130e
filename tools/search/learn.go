package search

import (
	"cmp"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Use is one earlier request that led to a tool: a search whose results
// held the tool, followed by a call of it. Tool is a Doc's ID or name.
type Use struct {
	Query string    `json:"query"`
	Tool  string    `json:"tool"`
	At    time.Time `json:"at,omitzero"`
	// Analysed is the request already analysed, as a store keeps it: its
	// terms in order, each a uvarint number into the Terms of the Analysis
	// the use comes with (an empty, non-nil slice: no terms). Nil: Query
	// is analysed. See NewLearnedAnalysed.
	Analysed []byte `json:"-"`
}

// DefaultLearnCap is how many distinct earlier requests a tool keeps in its
// learned field when Config.LearnCap is 0.
const DefaultLearnCap = 1024

// learned is what an index has learned from use. Each request is analysed
// once, when learned, into the index's term numbers; requests that analyse
// alike (the same words, whatever the case, spacing or stop words) are one.
type learned struct {
	seq int64
	// tab finds a request by its term numbers: an open-addressed table
	// of ids + 1 (0: empty) at the hash of their terms, at most half full.
	// A map from hash to id was 2.3 MB at 100,000 requests; this is 1 MB.
	tab []int32
	// The term numbers of request id are tflat[toff[id]:toff[id+1]]: one
	// array, not a slice per request (24 bytes of header each, and the
	// analysis's chunks kept alive by them).
	tflat []int32
	toff  []int32          // len: the requests + 1, or 0 for none
	tools map[string][]use // tool (as Use.Tool names it) -> its uses, oldest first
	buf   []int32
}

// nreq is how many distinct requests l holds.
func (l *learned) nreq() int { return max(len(l.toff)-1, 0) }

// req is the term numbers of request id.
func (l *learned) req(id int32) []int32 {
	lo, hi := l.toff[id], l.toff[id+1]
	return l.tflat[lo:hi:hi]
}

// appendReq adds a request with the term numbers ts and returns its id.
func (l *learned) appendReq(ts []int32) int32 {
	if len(l.toff) == 0 {
		l.toff = append(l.toff, 0)
	}
	l.tflat = append(l.tflat, ts...)
	l.toff = append(l.toff, int32(len(l.tflat)))
	return int32(len(l.toff) - 2)
}

// reqScratch is the scratch of learned.requests, one per goroutine.
type reqScratch struct {
	mark  []uint32
	stamp uint32
	out   []int32
	// eff is the last call's distinct requests, each faded by its age.
	eff float64
}

// use is 16 bytes, not 24 (0.8 MB at 100,000 uses): seq is the low 32
// bits of learned.seq, which orders the uses of one index (4 billion of
// them before it wraps).
type use struct {
	req int32
	seq uint32
	at  int64 // Unix seconds; 0 when undated
}

// unixOf is t in Unix seconds, 0 for the zero time.
func unixOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// DefaultLearnTrust is Config.LearnTrust's default: a tool counts its
// learned requests in full once 16 distinct ones led to it.
const DefaultLearnTrust = 16

// DefaultLearnHalfLife is Config.LearnHalfLife's default: a request made
// 90 days ago counts half.
const DefaultLearnHalfLife = 90 * 24 * time.Hour

// trust is what a tool's learned requests count for (Config.LearnTrust):
// eff distinct requests, each already faded by its age.
func trust(cfg Config, eff float64) float32 {
	if cfg.LearnTrust <= 0 {
		return 1
	}
	return float32(min(1, eff/cfg.LearnTrust))
}

// fade is what a request last used at (Unix seconds) counts at now.
func fade(cfg Config, at, now int64) float64 {
	if at == 0 || cfg.LearnHalfLife <= 0 || at >= now {
		return 1
	}
	return math.Exp2(-float64(now-at) / cfg.LearnHalfLife.Seconds())
}

// add analyses uses with an (or reads their analysis through m, which may
// be nil) and records them in order; it sets the tools they name in
// touched when that is not nil.
func (l *learned) add(an *analyzer, uses []Use, touched map[string]bool, m *dictRemap) {
	uses = oldestFirst(uses)
	var pre [][]int32
	if len(uses) >= parallelUses {
		pre = remapUses(analyseUses(uses, m), an, uses, m)
	}
	l.addAnalysed(an, uses, pre, touched, m)
}

// oldestFirst orders uses by At, so the newest of a repeated request is
// the one kept; uses already in order are returned as they are.
func oldestFirst(uses []Use) []Use {
	if !slices.IsSortedFunc(uses, func(a, b Use) int { return a.At.Compare(b.At) }) {
		uses = slices.Clone(uses)
		slices.SortStableFunc(uses, func(a, b Use) int { return a.At.Compare(b.At) })
	}
	return uses
}

// addAnalysed records uses, oldest first, with their requests' term
// numbers in pre when not nil (see analyseUses), analysing them with an
// (or reading their analysis through m) otherwise.
func (l *learned) addAnalysed(an *analyzer, uses []Use, pre [][]int32, touched map[string]bool, m *dictRemap) {
	if l.tools == nil {
		l.tools = map[string][]use{}
	}
	// One search that led to several tools is several uses of one
	// request, one after another: it is analysed once.
	id := int32(-1)
	for i, u := range uses {
		if i == 0 || !sameRequest(&uses[i], &uses[i-1]) {
			id = -1
			switch {
			case pre != nil:
				if len(pre[i]) > 0 {
					id = l.request(pre[i])
				}
			case u.Analysed != nil:
				var ok bool
				if l.buf, ok = decodeTerms(u.Analysed, m.terms, l.buf[:0]); ok && len(l.buf) > 0 {
					m.index(an, l.buf)
					id = l.request(l.buf)
				}
			default:
				l.buf = l.buf[:0]
				an.termIDs(truncate(u.Query, maxQueryBytes), func(id int32) { l.buf = append(l.buf, id) })
				if len(l.buf) > 0 {
					id = l.request(l.buf)
				}
			}
		}
		tool := toolKey(u.Tool)
		if tool == "" || id < 0 {
			continue
		}
		l.seq++
		l.tools[tool] = append(l.tools[tool], use{id, uint32(l.seq), unixOf(u.At)})
		if touched != nil {
			touched[tool] = true
		}
	}
}

// request returns the id of the request with the term numbers ts (copied),
// adding it if it is new.
func (l *learned) request(ts []int32) int32 {
	if 2*(l.nreq()+1) > len(l.tab) {
		l.rehash(max(64, 4*(l.nreq()+1)))
	}
	mask := uint64(len(l.tab) - 1)
	for i := slotOf(requestHash(ts), mask); ; i = (i + 1) & mask {
		if l.tab[i] == 0 {
			id := l.appendReq(ts)
			l.tab[i] = id + 1
			return id
		}
		if id := l.tab[i] - 1; slices.Equal(l.req(id), ts) {
			return id
		}
	}
}

// rehash makes tab of size slots (a power of two, at least twice the
// requests) and files every request in it.
func (l *learned) rehash(size int) {
	l.tab = make([]int32, 1<<bits.Len(uint(size-1)))
	for id := range int32(l.nreq()) {
		l.file(id, requestHash(l.req(id)))
	}
}

// file puts request id, whose terms hash to h, in the first free slot.
func (l *learned) file(id int32, h uint64) {
	mask := uint64(len(l.tab) - 1)
	i := slotOf(h, mask)
	for l.tab[i] != 0 {
		i = (i + 1) & mask
	}
	l.tab[i] = id + 1
}

// slotOf is the first slot of tab (mask: its size - 1) for the hash h: its
// high half folded in, as FNV's low bits depend on the terms' low bits alone.
func slotOf(h, mask uint64) uint64 { return (h ^ h>>32) & mask }

// requestHash is FNV-1a over a request's term numbers.
func requestHash(ts []int32) uint64 {
	h := uint64(14695981039346656037)
	for _, t := range ts {
		h = (h ^ uint64(uint32(t))) * 1099511628211
	}
	return h
}

// toolKey is a use's tool as the learned field files it.
func toolKey(t string) string {
	if t != "" && t[0] > ' ' && t[0] < utf8.RuneSelf && t[len(t)-1] > ' ' && t[len(t)-1] < utf8.RuneSelf {
		return t // nearly every name: TrimSpace's scan for Unicode spaces costs 2 ms at 100,000
	}
	return strings.TrimSpace(t)
}

// addBulk is addAnalysed for an empty learned and uses oldest first whose
// requests are analysed into pre (remapUses): what a start reads from the
// store. The same result, with the work that is not in order (hashing,
// deduplicating, grouping by tool) on two CPUs: done one use at a time it
// took a fifth of the build at 100,000 uses.
func (l *learned) addBulk(uses []Use, pre [][]int32) {
	n := len(uses)
	// Meanwhile, number the tools the uses name and count their uses: the
	// uses are filed by tool at the end in one array cut per tool (a map of
	// growing slices, one per half of the uses, made 100,000 allocations).
	toolOf := make([]int32, n)
	var toolNames []string
	var toolUses []int32
	filed := make(chan struct{})
	go func() {
		defer close(filed)
		idx := make(map[string]int32, 1024)
		for i := range uses {
			tool := toolKey(uses[i].Tool)
			if tool == "" {
				toolOf[i] = -1
				continue
			}
			t, ok := idx[tool]
			if !ok {
				t = int32(len(toolNames))
				idx[tool] = t
				toolNames = append(toolNames, tool)
				toolUses = append(toolUses, 0)
			}
			toolOf[i] = t
			toolUses[t]++
		}
	}()
	// head[i]: the use whose request use i has. A search that led to
	// several tools is several uses in a row with one request.
	head := make([]int32, n)
	for i := range uses {
		head[i] = int32(i)
		if i > 0 && sameRequest(&uses[i], &uses[i-1]) {
			head[i] = head[i-1]
		}
	}
	hash := make([]uint64, n)
	canon := make([]int32, n) // the first use whose request is alike, -1 for none
	var wg sync.WaitGroup
	halves := [3]int{0, n / 2, n} // the uses of goroutine p: halves[p]:halves[p+1]
	for p := range 2 {
		wg.Go(func() {
			for i := halves[p]; i < halves[p+1]; i++ {
				if head[i] == int32(i) {
					hash[i] = requestHash(pre[i])
				}
			}
		})
	}
	wg.Wait()
	// Deduplicate by the hash's low bit, one half a CPU: the first use of
	// each request, in order, is its canonical one.
	for p := range 2 {
		wg.Go(func() {
			m := make(map[uint64]int32, n/2)
			for i := range n {
				if head[i] != int32(i) || hash[i]&1 != uint64(p) {
					continue
				}
				canon[i] = -1
				if len(pre[i]) == 0 {
					continue
				}
				f, ok := m[hash[i]]
				switch {
				case !ok:
					m[hash[i]] = int32(i)
					canon[i] = int32(i)
				case slices.Equal(pre[f], pre[i]):
					canon[i] = f
				default:
					canon[i] = int32(i) // a hash collision: kept apart, as request does
				}
			}
		})
	}
	wg.Wait()
	// Number the requests in the order they were first learned, their
	// terms copied into one array of the exact size. Nearly every request
	// of a long-used store is distinct.
	reqs, size := 0, 0
	for i := range n {
		if head[i] == int32(i) && canon[i] == int32(i) {
			reqs++
			size += len(pre[i])
		}
	}
	l.tflat = make([]int32, 0, size)
	l.toff = make([]int32, 1, reqs+1)
	hashOf := make([]uint64, 0, reqs) // by request id
	idOf := canon                     // each head's canonical use becomes its request's id
	for i := range n {
		switch c := canon[i]; {
		case head[i] != int32(i):
			idOf[i] = idOf[head[i]]
		case c == int32(i):
			idOf[i] = l.appendReq(pre[i])
			hashOf = append(hashOf, hash[i])
		case c >= 0:
			idOf[i] = idOf[c]
		}
	}
	// File the requests in the table (learned.tab) while the uses are
	// filed by tool.
	wg.Go(func() {
		l.tab = make([]int32, 1<<bits.Len(uint(2*(reqs+1)-1)))
		for id, h := range hashOf {
			l.file(int32(id), h)
		}
	})
	<-filed
	off := make([]int32, len(toolNames)+1)
	for t, c := range toolUses {
		off[t+1] = off[t] + c
	}
	next := toolUses[:0] // the counts are done with: each tool's next slot
	next = append(next, off[:len(toolNames)]...)
	flat := make([]use, n)
	for i := range n {
		if t := toolOf[i]; t >= 0 && idOf[i] >= 0 {
			flat[next[t]] = use{idOf[i], uint32(l.seq + int64(i) + 1), unixOf(uses[i].At)}
			next[t]++
		}
	}
	l.tools = make(map[string][]use, len(toolNames))
	for t, name := range toolNames {
		if next[t] > off[t] {
			// Capacity cut at the end: a use learned later reallocates
			// rather than overwrite the next tool's.
			l.tools[name] = flat[off[t]:next[t]:next[t]]
		}
	}
	wg.Wait()
	l.seq += int64(n)
}

// addLearned adds the learned field to tools analysed without it, half of
// them on another goroutine: each worker has its own counts and scratch,
// and the learned requests are only read.
func (ix *Index) addLearned(all []*analysed) {
	mine, theirs := all, []*analysed(nil)
	if runtime.GOMAXPROCS(0) > 1 {
		mine, theirs = all[:len(all)/2], all[len(all)/2:]
	}
	var wg sync.WaitGroup
	if len(theirs) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{cfg: ix.cfg, an: ix.an, learned: &ix.learned}
			for _, a := range theirs {
				w.addLearned(a)
			}
		}()
	}
	for _, a := range mine {
		ix.seq.addLearned(a)
	}
	wg.Wait()
}

// requests returns the ids of the newest limit distinct requests of doc d,
// newest first, and sets sc.eff to their count, each faded by its age at
// now (Unix seconds) under cfg.
func (l *learned) requests(d Doc, limit int, sc *reqScratch, cfg Config, now int64) []int32 {
	if len(l.tools) == 0 {
		return nil
	}
	us := l.tools[d.Key()]
	if d.ID != "" && d.ID != d.Name {
		if other := l.tools[d.Name]; len(other) > 0 {
			us = append(slices.Clip(us), other...)
			slices.SortFunc(us, func(a, b use) int { return cmp.Compare(a.seq, b.seq) })
		}
	}
	if len(us) == 0 {
		return nil
	}
	// mark[r] == stamp: request r is already taken for this doc. A stamp
	// per call instead of a set per doc: 10,000 tools made 10,000 maps.
	if nr := l.nreq(); len(sc.mark) < nr {
		sc.mark = append(sc.mark, make([]uint32, nr-len(sc.mark))...)
	}
	sc.stamp++
	out := sc.out[:0]
	sc.eff = 0
	if now == 0 {
		now = time.Now().Unix()
	}
	for i := len(us) - 1; i >= 0 && (limit <= 0 || len(out) < limit); i-- {
		if r := us[i].req; sc.mark[r] != sc.stamp {
			sc.mark[r] = sc.stamp
			out = append(out, r)
			sc.eff += fade(cfg, us[i].at, now) // r's newest use: us is oldest first
		}
	}
	sc.out = out
	return out
}

// NewLearned indexes docs with cfg and what uses taught: each tool's
// earlier requests are indexed in its learned field (FieldLearned),
// deduplicated and capped at Config.LearnCap, the newest kept.
func NewLearned(docs []Doc, cfg Config, uses []Use) *Index {
	return newIndex(docs, cfg, uses, nil)
}

// NewLearnedAnalysed is NewLearned with uses whose requests may come
// analysed (Use.Analysed) under stored's dictionary; nil stored, or one of
// another AnalysisVersion, has every use's Query analysed.
func NewLearnedAnalysed(docs []Doc, cfg Config, uses []Use, stored *Analysis) *Index {
	return newIndex(docs, cfg, uses, stored)
}

// Learn adds uses to what the index has learned and re-indexes the servers
// of the tools they name. Uses are applied oldest first (by At; in the
// order given when they have none).
func (ix *Index) Learn(uses ...Use) { ix.LearnAnalysed(nil, uses...) }

// LearnAnalysed is Learn with uses whose requests may come analysed under
// stored's dictionary (see NewLearnedAnalysed).
func (ix *Index) LearnAnalysed(stored *Analysis, uses ...Use) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	touched := map[string]bool{}
	uses, m := usable(uses, stored, ix.cfg.Stemmer)
	ix.learned.add(ix.an, uses, touched, m)
	if len(touched) == 0 {
		return
	}
	changed := map[string][]Doc{}
	for _, srv := range ix.servers {
		as := ix.byServer[srv]
		if !slices.ContainsFunc(as, func(a *analysed) bool { return touched[a.doc.Key()] || touched[a.doc.Name] }) {
			continue
		}
		docs := make([]Doc, len(as))
		for i, a := range as {
			docs[i] = a.doc
		}
		changed[srv] = docs
	}
	if len(changed) > 0 {
		ix.replaceLocked(changed)
	}
}

// Forget drops everything the index has learned.
func (ix *Index) Forget() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if len(ix.learned.tools) == 0 {
		return
	}
	ix.learned = learned{}
	changed := map[string][]Doc{}
	for _, srv := range ix.servers {
		for _, a := range ix.byServer[srv] {
			changed[srv] = append(changed[srv], a.doc)
		}
	}
	ix.replaceLocked(changed)
}

// Learned is how many tools have learned requests.
func (ix *Index) Learned() int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return len(ix.learned.tools)
}
