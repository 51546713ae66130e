package search

import (
	"math"
	"slices"
	"strings"
)

// rerankDepth is how many first-pass candidates the second pass reorders,
// whatever the limit: the first page must not depend on how many results
// were asked for (a model asks for 5, agent tools search shows 10, the
// benchmarks read 50). With the depth at max(limit, 30), a request for 10
// and one for 50 ranked differently: the CLI measured 87.9 on MetaTool's
// multi-tool requests after its history where searchbench measured 88.1.
// 50 is the depth every figure of the README was measured at.
const rerankDepth = 50

// ranked is a document with the score it is ranked by.
type ranked struct {
	d     int32
	score float64
}

// rerank orders the best candidates of a first pass. Two signals that need a
// whole document's terms are applied here, to a few dozen candidates rather
// than the catalog:
//
//   - name coverage (Config.NamePrior): the share of a tool name's terms,
//     weighted by idf, that the query has. A name is a tool's shortest
//     exact summary; a query that says all of it is about that tool. A
//     name term the query says in another form (dq: financial for
//     FinanceTool's finance) counts Config.NameDerived.
//   - query-term diversity (Config.Diversity): a request for a task that
//     needs several tools names several things. Once a tool covering a query
//     term is ranked, that term counts less for the tools after it (the
//     query terms act as the aspects of explicit diversification, as in
//     xQuAD or PM2), so one aspect that many tools match cannot fill the list.
func (s *snapshot) rerank(scores []float32, qt, dq map[int32]float64, votes map[int32]float64, reqCover float64, limit int) []ranked {
	cfg := s.cfg
	if cfg.NamePrior == 0 && cfg.Diversity == 0 && cfg.InputPrior == 0 && len(votes) == 0 {
		top := topK(scores, limit, s)
		out := make([]ranked, len(top))
		for i, d := range top {
			out[i] = ranked{d, float64(scores[d])}
		}
		return out
	}
	all := topK(scores, max(limit, rerankDepth), s)
	if len(all) == 0 {
		return nil
	}
	// Past the depth, candidates follow in first-pass order: a limit above
	// it only adds to the page, and a voted tool is reranked wherever it was.
	cand := slices.Clip(all[:min(len(all), rerankDepth)])
	tail := all[len(cand):]
	for d := range votes {
		if !slices.Contains(cand, d) {
			cand = append(cand, d)
			tail = slices.DeleteFunc(tail, func(t int32) bool { return t == d })
		}
	}
	terms := make([]int32, 0, len(qt))
	for t := range qt {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	col := make(map[int32]int, len(terms))
	for i, t := range terms {
		col[t] = i
	}
	best := float64(scores[cand[0]])
	base := make([]float64, len(cand))
	contrib := make([]float64, len(cand)*len(terms)) // [candidate][term]
	for c, d := range cand {
		base[c] = float64(scores[d])
		row := contrib[c*len(terms) : (c+1)*len(terms)]
		var have, all float64
		norm := &s.norm[d]
		dterms := s.docs[d].terms // the learned-only terms matter for diversity alone
		if cfg.Diversity > 0 {
			dterms = slices.Collect(s.docs[d].allTerms())
		}
		for _, tc := range dterms {
			if cfg.Diversity == 0 && tc.tf[FieldName] == 0 {
				continue // only name terms matter then
			}
			id := s.local[tc.id]
			if id < 0 {
				continue
			}
			i, inQuery := col[id]
			if tc.tf[FieldName] > 0 {
				all += s.idf[id]
				if inQuery || dq[id] > 0 {
					have += s.idf[id] * math.Min(1, max(qt[id], dq[id]))
				}
			}
			if inQuery && cfg.Diversity > 0 {
				tfw := 0.0
				for f := range NumFields {
					tfw += float64(tc.tf[f]) * float64(norm[f])
				}
				row[i] = qt[id] * s.idf[id] * tfw * (cfg.K1 + 1) / (cfg.K1 + tfw)
			}
		}
		if cfg.InputPrior > 0 {
			base[c] += cfg.InputPrior * best * s.inputsNamed(d, qt)
		}
		if all > 0 {
			prior := cfg.NamePrior * (1 - cfg.PriorCover*reqCover)
			if n := s.docs[d].uses; cfg.PriorTrust > 0 && n > 0 {
				prior *= cfg.PriorTrust / (cfg.PriorTrust + float64(n))
			}
			base[c] += prior * best * have / all
		}
	}
	if len(votes) > 0 {
		// The neighbours' vote, on the scale of the best candidate so far.
		top := slices.Max(base)
		for c, d := range cand {
			base[c] += top * votes[d]
		}
	}
	cover := make([]float64, len(terms))
	for i := range cover {
		cover[i] = 1
	}
	out := make([]ranked, 0, min(limit, len(cand)))
	used := make([]bool, len(cand))
	for len(out) < limit && len(out) < len(cand) {
		pick, pickScore := -1, 0.0
		for c := range cand {
			if used[c] {
				continue
			}
			v := base[c]
			row := contrib[c*len(terms) : (c+1)*len(terms)]
			for i, x := range row {
				v -= (1 - cover[i]) * x
			}
			if pick < 0 || v > pickScore || (v == pickScore && s.docs[cand[c]].doc.Name < s.docs[cand[pick]].doc.Name) {
				pick, pickScore = c, v
			}
		}
		used[pick] = true
		out = append(out, ranked{cand[pick], pickScore})
		row := contrib[pick*len(terms) : (pick+1)*len(terms)]
		for i, x := range row {
			if x > 0 {
				cover[i] *= 1 - cfg.Diversity
			}
		}
	}
	for _, d := range tail {
		if len(out) >= limit {
			break
		}
		out = append(out, ranked{d, float64(scores[d])})
	}
	return out
}

// sortRanked orders r by score, best first, ties by name.
func sortRanked(r []ranked, s *snapshot) {
	slices.SortFunc(r, func(a, b ranked) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return strings.Compare(s.docs[a.d].doc.Name, s.docs[b.d].doc.Name)
	})
}

// inputsNamed is the idf-weighted share of doc d's required parameters
// whose words the query has: a request that carries a tool's inputs ("a
// base of 10 and a height of 5") asks for that tool (Config.InputPrior).
// A tool that requires nothing gets nothing: nothing says it fits.
func (s *snapshot) inputsNamed(d int32, qt map[int32]float64) float64 {
	var have, all float64
	for _, need := range s.requiredTerms(d) {
		w, named := 0.0, 0.0
		for _, t := range need {
			w = max(w, s.idf[t])
			if _, ok := qt[t]; ok {
				named = max(named, s.idf[t])
			}
		}
		all += w
		have += named
	}
	if all == 0 {
		return 0
	}
	return have / all
}
