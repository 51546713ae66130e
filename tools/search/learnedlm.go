package search

import (
	"math"
	"slices"
)

// learnedLMMu is the Dirichlet prior of the learned language model, in
// words: a tool with fewer learned words than this leans on the background.
const learnedLMMu = 50

// learnedLMCandidates is how many of the first pass's best tools the
// language model weighs, besides those the neighbours voted for.
const learnedLMCandidates = 50

// learnedLMVotes adds to votes each candidate tool's probability of having
// produced the query's words (those any learned request has), under a
// unigram model of its own learned requests with Dirichlet smoothing,
// normalised over the candidates: naive Bayes over the user's history.
// BM25 on the pooled requests rewards the words a tool's history has and
// is silent on those it lacks; the model also counts what is missing,
// which is what tells apart two tools people reach with similar words.
func (s *snapshot) learnedLMVotes(terms []string, scores []float32, votes map[int32]float64) map[int32]float64 {
	w := s.cfg.LearnedLM
	if w <= 0 || s.learnedTotal == 0 {
		return votes
	}
	var qt []int32
	for _, t := range terms {
		if id, ok := s.vocab[t]; ok && s.learnedCF[id] > 0 {
			qt = append(qt, id)
		}
	}
	if len(qt) == 0 {
		return votes
	}
	cand := topK(scores, learnedLMCandidates, s)
	for d := range votes {
		cand = append(cand, d)
	}
	seen := map[int32]bool{}
	tf := make([]float64, len(qt)) // the candidate's count of each query word
	type ll struct {
		d int32
		v float64
	}
	var lls []ll
	best := math.Inf(-1)
	for _, d := range cand {
		a := s.docs[d]
		if seen[d] || a.lens[FieldLearned] == 0 {
			continue
		}
		seen[d] = true
		clear(tf)
		for _, tc := range a.terms {
			if c := tc.tf[FieldLearned]; c > 0 {
				if id := s.local[tc.id]; id >= 0 {
					if i := slices.Index(qt, id); i >= 0 {
						tf[i] = float64(c)
					}
				}
			}
		}
		n := float64(a.lens[FieldLearned])
		v := 0.0
		for i, t := range qt {
			p := float64(s.learnedCF[t]) / s.learnedTotal
			v += math.Log((tf[i] + learnedLMMu*p) / (n + learnedLMMu))
		}
		// Per word (the geometric mean): the plain product is so peaked
		// that one tool takes all the mass, and a request that needs two
		// tools loses the second.
		lls = append(lls, ll{d, v / float64(len(qt))})
		best = max(best, v)
	}
	if len(lls) == 0 {
		return votes
	}
	sum := 0.0
	for _, x := range lls {
		sum += math.Exp(x.v - best)
	}
	if votes == nil {
		votes = map[int32]float64{}
	}
	for _, x := range lls {
		votes[x.d] += w * math.Exp(x.v-best) / sum
	}
	return votes
}
