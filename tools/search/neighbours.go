package search

import (
	"math"
	"slices"
	"sync"
)

// Neighbours: the earlier requests most like a query vote for the tools
// they led to.
//
// The learned field (FieldLearned) pools every request of a tool into one
// bag of words, so a tool reached by many different requests matches a
// little of everything, and two tools used for neighbouring needs
// ("plan a trip" and "advice for a trip") share most of their bags. A
// request that says nearly what an earlier one said is better evidence
// than the bag: the earlier request's own tool. Each distinct request is
// indexed as a small document of its own (plain BM25 over requests, k1
// 1.2, b 0.75); the first Config.Neighbours of them vote, each with
// (its score / the best score)^NeighbourPower shared equally among the
// tools it led to (one search followed by three calls is one vote), and a
// tool's share of the vote, times how completely the best request covers
// the query (its score over what a request made of exactly the query's
// terms would score, capped at 1), times NeighbourWeight times the best
// candidate's score, is added to its score in the second pass (rerank). A
// request that resembles nothing earlier, as on a catalog nobody has
// used, moves nothing. The same coverage scales the query's synonym and
// WordNet expansions down (Config.ExpandCover).

// neighbourIndex is the per-request index of a snapshot.
type neighbourIndex struct {
	// The postings (request, impact) of the snapshot's term t are
	// post[pstart[t]:pstart[t+1]]: one array, not a slice per term of the
	// whole vocabulary.
	pstart []int32
	post   []posting
	idf    []float32 // by the snapshot's term id, over requests
	// The docs request k led to are flat[start[k]:start[k+1]].
	start, flat []int32
}

// docsOf returns the docs request k led to.
func (ni *neighbourIndex) docsOf(k int32) []int32 { return ni.flat[ni.start[k]:ni.start[k+1]] }

const (
	neighbourK1 = 1.2
	neighbourB  = 0.75
)

// buildNeighbours indexes the distinct requests that docs learned (their
// term numbers in l), numbering terms by local as the snapshot does
// (nt of them).
func buildNeighbours(sdocs []*analysed, local []int32, nt int, l *learned) *neighbourIndex {
	// Number the requests in use densely, in the order they were learned,
	// so their term lists are read in memory order; slices, not maps:
	// with 100,000 requests, maps and scattered reads were most of the cost.
	kOf := make([]int32, l.nreq()) // learned id -> request number + 1
	links := 0
	for _, a := range sdocs {
		for _, r := range a.reqs {
			kOf[r] = 1
		}
		links += len(a.reqs)
	}
	var byReq []int32 // request number -> learned id
	for r, used := range kOf {
		if used != 0 {
			byReq = append(byReq, int32(r))
			kOf[r] = int32(len(byReq))
		}
	}
	if len(byReq) == 0 {
		return nil
	}
	count := make([]int32, len(byReq))
	for _, a := range sdocs {
		for _, r := range a.reqs {
			count[kOf[r]-1]++
		}
	}
	ni := &neighbourIndex{start: make([]int32, len(byReq)+1), flat: make([]int32, links)}
	for k, c := range count {
		ni.start[k+1] = ni.start[k] + c
	}
	fill := slices.Clone(ni.start[:len(byReq)])
	for d, a := range sdocs {
		for _, r := range a.reqs {
			k := kOf[r] - 1
			ni.flat[fill[k]] = int32(d)
			fill[k]++
		}
	}
	df := make([]int32, nt)
	total := 0
	seen := make([]int32, nt) // seen[t] == k+1: term t already counted for request k
	for k, r := range byReq {
		ts := l.req(r)
		total += len(ts)
		for _, id := range ts {
			t := local[id]
			if t >= 0 && seen[t] != int32(k)+1 {
				seen[t] = int32(k) + 1
				df[t]++
			}
		}
	}
	n := float64(len(byReq))
	avg := math.Max(float64(total)/n, 1)
	ni.pstart, ni.idf = make([]int32, nt+1), make([]float32, nt)
	for t, c := range df {
		ni.pstart[t+1] = ni.pstart[t] + c
		if c > 0 {
			ni.idf[t] = float32(math.Log(1 + (n-float64(c)+0.5)/(float64(c)+0.5)))
		}
	}
	ni.post = make([]posting, ni.pstart[nt])
	next := seen // seen is done with: it becomes each term's next slot
	copy(next, ni.pstart[:nt])
	tf := df // so is df: each term's count in the request at hand
	clear(tf)
	for k, r := range byReq {
		ts := l.req(r)
		norm := 1 - neighbourB + neighbourB*float64(len(ts))/avg
		for _, id := range ts {
			if t := local[id]; t >= 0 {
				tf[t]++
			}
		}
		for _, id := range ts {
			t := local[id]
			if t < 0 || tf[t] == 0 {
				continue
			}
			f := float64(tf[t]) / norm
			ni.post[next[t]] = posting{int32(k), float32(float64(ni.idf[t]) * f * (neighbourK1 + 1) / (neighbourK1 + f))}
			next[t]++
			tf[t] = 0
		}
	}
	return ni
}

var reqScorePool sync.Pool // *[]float32

// neighbourVotes returns each tool's share of the vote of the requests most
// like the query (terms qt), times how completely the best of them covers
// the query; see the top of this file. Nil when nothing was learned.
func (s *snapshot) neighbourVotes(terms []string) (map[int32]float64, float64) {
	ni := s.neigh
	cfg := s.cfg
	if ni == nil || cfg.Neighbours <= 0 || cfg.NeighbourWeight <= 0 {
		return nil, 0
	}
	// The query's own words: expansions (synonyms, cues) that help match
	// a catalog's wording would match other people's requests that merely
	// use a related word.
	qt := s.wordCounts(terms)
	dampen(qt)
	p, _ := reqScorePool.Get().(*[]float32)
	nr := len(ni.start) - 1
	if p == nil || cap(*p) < nr {
		b := make([]float32, nr)
		p = &b
	}
	rs := (*p)[:nr]
	defer func() { clear(rs); reqScorePool.Put(p) }()
	var touched []int32
	self := 0.0 // what a request of exactly the query's terms would score
	for _, t := range sortedTerms(qt) {
		w := qt[t]
		if int(t) >= len(ni.idf) || ni.pstart[t] == ni.pstart[t+1] {
			continue
		}
		self += w * float64(ni.idf[t])
		for _, po := range ni.post[ni.pstart[t]:ni.pstart[t+1]] {
			if rs[po.doc] == 0 {
				touched = append(touched, po.doc)
			}
			rs[po.doc] += float32(w) * po.impact
		}
	}
	if len(touched) == 0 || self <= 0 {
		return nil, 0
	}
	better := func(a, b int32) bool { return rs[a] > rs[b] || rs[a] == rs[b] && a < b }
	best := bestN(touched, cfg.Neighbours, better)
	n := len(best)
	top := float64(rs[best[0]])
	cover := math.Min(1, top/self)

	votes := make([]float64, n)
	sum := 0.0
	for i, k := range best {
		votes[i] = math.Pow(float64(rs[k])/top, cfg.NeighbourPower)
		sum += votes[i]
	}
	out := map[int32]float64{}
	for i, k := range best {
		ds := ni.docsOf(k)
		for _, d := range ds {
			out[d] += cfg.NeighbourWeight * cover * votes[i] / sum / float64(len(ds)) * float64(s.docs[d].trust)
		}
	}
	// The cover returned scales the query's expansions down (ExpandCover),
	// by half plus half the trust of the best request's tools: one earlier
	// request sharing the query's words says little about where the query
	// leads, and took away the paraphrase that reads "file a ticket" as
	// create issue; a tool many requests led to answers for them. Chosen by
	// the worst case of searchbench -learn: in full trust, requests' halves
	// +8.2/+3.7 and LiveMCPBench's odd half -1.2; by half, +5.3/+3.7 and
	// -0.6 the worst.
	trusted := float32(0)
	for _, d := range ni.docsOf(best[0]) {
		trusted = max(trusted, s.docs[d].trust)
	}
	return out, cover * (0.5 + 0.5*float64(trusted))
}

// bestN returns the n best of xs by better, best first. A common word
// touches tens of thousands of requests, of which a few dozen vote: a
// bounded heap instead of sorting them all.
func bestN(xs []int32, n int, better func(a, b int32) bool) []int32 {
	if len(xs) <= n {
		slices.SortFunc(xs, func(a, b int32) int { return cmpBy(a, b, better) })
		return xs
	}
	// h is a heap with the worst of the best so far at the root.
	h := slices.Clone(xs[:n])
	down := func(i int) {
		for {
			w, l, r := i, 2*i+1, 2*i+2
			if l < n && better(h[w], h[l]) {
				w = l
			}
			if r < n && better(h[w], h[r]) {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, x := range xs[n:] {
		if better(x, h[0]) {
			h[0] = x
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b int32) int { return cmpBy(a, b, better) })
	return h
}

func cmpBy(a, b int32, better func(a, b int32) bool) int {
	switch {
	case better(a, b):
		return -1
	case better(b, a):
		return 1
	}
	return 0
}
