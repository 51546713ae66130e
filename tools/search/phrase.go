package search

import (
	"math"
	"slices"
)

// Phrases: pairs of adjacent terms (the phrase field). They are not indexed
// as terms. Each tool keeps its name's terms and its description's first
// terms in order (analysed.seq), and a query's pairs are matched against the
// tools that have both terms. A bit set of every pair that occurs rules out
// most query pairs before their postings are walked.

// queryPairs are the pairs of adjacent terms of a query, with weights as
// for terms: "fear greed index" gives (fear, greed) and (greed, index).
func (s *snapshot) queryPairs(terms []string) map[uint64]float64 {
	if s.cfg.Weight[FieldPhrase] == 0 {
		return nil
	}
	pairs := map[uint64]float64{}
	prev := int32(-1)
	for _, t := range terms {
		id, ok := s.vocab[t]
		if !ok {
			id = -1
		} else if prev >= 0 {
			pairs[pairKey(prev, id)]++
		}
		prev = id
	}
	for k, c := range pairs {
		pairs[k] = 1 + math.Log(c)
	}
	return pairs
}

// phrases adds the phrase field's BM25F score: a tool whose name or first
// description terms have a query pair adjacent, in order, scores as if the
// pair were one more term. Pairs are matched here, not indexed: the docs
// that have both terms are few, and their terms are at hand in order.
func (s *snapshot) phrases(scores []float32, pairs map[uint64]float64) {
	for k, w := range pairs {
		s.addPair(scores, s.pairHits(k, nil), w)
	}
}

// phraseHit is a doc where a pair occurs, with the pair's BM25F weight there.
type phraseHit struct {
	d      int32
	impact float32
}

// pairHits finds the docs where the pair k occurs and weighs it there.
func (s *snapshot) pairHits(k uint64, hits []phraseHit) []phraseHit {
	a, b := int32(k>>32), int32(uint32(k))
	ga, gb := s.global[a], s.global[b]
	hits = hits[:0]
	if !s.mayHavePair(ga, gb) {
		return hits
	}
	pa, pb := s.postings[a], s.postings[b]
	// Both lists are in document order: walk them together.
	for i, j := 0, 0; i < len(pa) && j < len(pb); {
		switch da, db := pa[i].doc, pb[j].doc; {
		case da < db:
			i++
		case da > db:
			j++
		default:
			tf := 0
			seq := s.seqs[da]
			for x := 1; x < len(seq); x++ {
				if seq[x] == gb && seq[x-1] == ga {
					tf++
				}
			}
			if tf > 0 {
				hits = append(hits, phraseHit{da, float32(tf)})
			}
			i++
			j++
		}
	}
	if len(hits) == 0 {
		return hits
	}
	n, df, k1 := float64(len(s.docs)), float64(len(hits)), s.cfg.K1
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	for i, h := range hits {
		tfw := float64(h.impact) * float64(s.norm[h.d][FieldPhrase])
		hits[i].impact = float32(idf * tfw * (k1 + 1) / (k1 + tfw))
	}
	return hits
}

func (s *snapshot) addPair(scores []float32, hits []phraseHit, w float64) {
	for _, h := range hits {
		scores[h.d] += float32(w) * h.impact
	}
}

// pairCandidates adds to cand the pairs of adjacent terms of doc d that the
// query does not have, weighted as feedback terms are: rel times the pair's
// BM25F weight in d.
func (s *snapshot) pairCandidates(d int32, rel float64, qp map[uint64]float64, cand map[uint64]float64) {
	df := s.pairDocFreq()
	seq := s.seqs[d]
	n, k1, norm := float64(len(s.docs)), s.cfg.K1, float64(s.norm[d][FieldPhrase])
	tf := map[uint64]int{}
	for x := 1; x < len(seq); x++ {
		if seq[x-1] >= 0 && seq[x] >= 0 {
			tf[pairKey(s.local[seq[x-1]], s.local[seq[x]])]++
		}
	}
	for k, c := range tf {
		if _, inQuery := qp[k]; inQuery {
			continue
		}
		f := float64(df[k])
		idf := math.Log(1 + (n-f+0.5)/(f+0.5))
		tfw := float64(c) * norm
		cand[k] += rel * idf * tfw * (k1 + 1) / (k1 + tfw)
	}
}

// buildPairBits fills pairBits, about 16 bits per pair so that few pairs
// that occur nowhere pass.
func (s *snapshot) buildPairBits() {
	if s.cfg.Weight[FieldPhrase] == 0 {
		return
	}
	total := 0
	for _, a := range s.docs {
		total += len(a.seq)
	}
	size := 64
	for size < 16*total {
		size *= 2
	}
	s.pairBits = make([]uint64, size/64)
	s.seqs = make([][]int32, len(s.docs))
	for d, a := range s.docs {
		s.seqs[d] = a.seq
		for x := 1; x < len(a.seq); x++ {
			if a.seq[x-1] >= 0 && a.seq[x] >= 0 {
				h := pairHash(a.seq[x-1], a.seq[x]) & uint64(size-1)
				s.pairBits[h/64] |= 1 << (h % 64)
			}
		}
	}
}

// mayHavePair reports whether some doc may have analyser terms x, y
// adjacent; false is certain.
func (s *snapshot) mayHavePair(x, y int32) bool {
	if len(s.pairBits) == 0 {
		return false
	}
	h := pairHash(x, y) & uint64(len(s.pairBits)*64-1)
	return s.pairBits[h/64]&(1<<(h%64)) != 0
}

func pairHash(x, y int32) uint64 {
	h := pairKey(x, y) * 0x9E3779B97F4A7C15
	return h ^ h>>29
}

// pairDocFreq returns pairDF, building it on first use.
func (s *snapshot) pairDocFreq() map[uint64]int32 {
	s.pairOnce.Do(func() {
		s.pairDF = map[uint64]int32{}
		var seen []uint64
		for _, seq := range s.seqs {
			seen = seen[:0]
			for x := 1; x < len(seq); x++ {
				if seq[x-1] < 0 || seq[x] < 0 {
					continue
				}
				k := pairKey(s.local[seq[x-1]], s.local[seq[x]])
				if !slices.Contains(seen, k) {
					seen = append(seen, k)
					s.pairDF[k]++
				}
			}
		}
	})
	return s.pairDF
}
