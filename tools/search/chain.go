package search

import (
	"encoding/json"
	"slices"
)

// maxMakers is how many tools of a server may mention an input for them to
// count as its producers.
const maxMakers = 2

// chainDepth is how many of the best first-pass tools have their required
// inputs looked at.
const chainDepth = 5

// chain lifts the tools the best hits depend on (Config.Chain). A tool whose
// required input the request does not give ("latitude" for "restaurants near
// Tokyo Tower", a "library ID" for "use context7 for Next.js") needs another
// tool first, and tools say which: a sibling on the same server that
// mentions that input in its name or description without requiring it is its
// producer (geocode_address "returns ... coordinates (latitude/longitude)",
// resolve-library-id "resolves a package name to a Context7-compatible
// library ID"). Such a tool shares no word with the request, so nothing else
// finds it. It is lifted to Chain times the score of the tool needing it.
func (s *snapshot) chain(scores []float32, qt map[int32]float64) {
	top := topK(scores, chainDepth, s)
	if len(top) == 0 || scores[top[0]] <= 0 {
		return
	}
	lift := map[int32]float32{}
	for _, d := range top {
		if scores[d] <= 0 {
			break
		}
		for _, need := range s.requiredTerms(d) {
			if slices.ContainsFunc(need, func(t int32) bool { _, ok := qt[t]; return ok }) {
				continue // the request names it, so it may well give it
			}
			srv := s.docServer[d]
			var makers []int32
			for o := s.serverStart[srv]; o < s.serverStart[srv+1] && len(makers) <= maxMakers; o++ {
				if o != d && s.mentionsAll(o, need) && !s.requires(o, need) {
					makers = append(makers, o)
				}
			}
			if len(makers) > maxMakers {
				continue // an input many tools mention ("data", "project") names no producer
			}
			for _, o := range makers {
				lift[o] = max(lift[o], float32(s.cfg.Chain)*scores[d])
			}
		}
	}
	for o, v := range lift {
		scores[o] = max(scores[o], v)
	}
}

// requiredTerms returns the analysed words (local term ids) of each required
// parameter of doc d that the catalog's vocabulary has.
func (s *snapshot) requiredTerms(d int32) [][]int32 {
	if p := s.required[d].Load(); p != nil {
		return *p
	}
	out := s.parseRequired(d)
	s.required[d].Store(&out)
	return out
}

func (s *snapshot) parseRequired(d int32) [][]int32 {
	var sc struct {
		Required []string `json:"required"`
	}
	if len(s.docs[d].doc.Schema) == 0 || json.Unmarshal(s.docs[d].doc.Schema, &sc) != nil {
		return nil
	}
	an := analyzer{stem: stemmerFunc(s.cfg.Stemmer)}
	var out [][]int32
	for _, p := range sc.Required {
		var ids []int32
		an.terms(p, func(t string) {
			if id, ok := s.vocab[t]; ok && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		})
		if len(ids) > 0 {
			out = append(out, ids)
		}
	}
	return out
}

// mentionsAll reports whether doc d's name or description has every term.
func (s *snapshot) mentionsAll(d int32, terms []int32) bool {
	found := 0
	for _, tc := range s.docs[d].terms {
		if tc.tf[FieldName] == 0 && tc.tf[FieldDescription] == 0 {
			continue
		}
		if id := s.local[tc.id]; id >= 0 && slices.Contains(terms, id) {
			found++
		}
	}
	return found == len(terms)
}

// requires reports whether doc d has a required parameter with these words
// (and maybe more: "home_latitude" for "latitude"): a tool that needs the
// input too consumes it, it does not make it.
func (s *snapshot) requires(d int32, terms []int32) bool {
	for _, r := range s.requiredTerms(d) {
		if !slices.ContainsFunc(terms, func(t int32) bool { return !slices.Contains(r, t) }) {
			return true
		}
	}
	return false
}
