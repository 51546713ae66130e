package search

import (
	"strings"
	"unicode"
)

// maxIntents bounds the clauses of a request ranked on their own: each costs
// a full ranking pass.
const maxIntents = 4

// fuseDepth is how many tools of each ranking take part in fusion.
const fuseDepth = 50

// splitIntents cuts a request into the clauses that may each need a tool:
// at sentence ends, semicolons, commas and newlines, and before "then",
// "and", "also", "after that". "Find the paper, then save it to a file"
// gives "Find the paper" and "save it to a file". Dots inside words (paths,
// file names, URLs) do not cut. Clauses without a letter are dropped.
func splitIntents(q string) []string {
	var parts []string
	start := 0
	cut := func(end, next int) {
		if seg := strings.TrimSpace(q[start:end]); seg != "" {
			parts = append(parts, seg)
		}
		start = next
	}
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch c {
		case ';', ',', '\n', '!', '?':
			cut(i, i+1)
		case '.':
			// A sentence ends at a dot followed by space or the end.
			if i+1 == len(q) || q[i+1] == ' ' || q[i+1] == '\n' {
				cut(i, i+1)
			}
		}
	}
	cut(len(q), len(q))
	var out []string
	for _, p := range parts {
		out = append(out, splitConjunctions(p)...)
	}
	keep := out[:0]
	for _, p := range out {
		if strings.IndexFunc(p, unicode.IsLetter) >= 0 {
			keep = append(keep, p)
		}
	}
	return keep
}

// conjunctions start a new intent when they open a clause.
var conjunctions = map[string]bool{"then": true, "and": true, "also": true, "afterwards": true, "finally": true, "next": true}

// splitConjunctions cuts before a coordinating word. "and" joins nouns as
// often as clauses ("beat tracking and chroma"); a cut there still leaves
// each side a query of its own, which is what fusion needs.
func splitConjunctions(p string) []string {
	ws := strings.Fields(p)
	var out []string
	cur := []string{}
	for i := 0; i < len(ws); i++ {
		w := strings.ToLower(strings.Trim(ws[i], "\"'()"))
		if conjunctions[w] || (w == "after" && i+1 < len(ws) && strings.EqualFold(ws[i+1], "that")) {
			if len(cur) > 0 {
				out = append(out, strings.Join(cur, " "))
				cur = cur[:0]
			}
			if w == "after" {
				i++
			}
			continue
		}
		cur = append(cur, ws[i])
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, " "))
	}
	return out
}

// rankIntents ranks the whole request and each of its intents, and fuses
// the rankings, so a tool that only one step of a multi-step task needs can
// reach the first ten even when another step has many more matching words.
func (s *snapshot) rankIntents(q string, limit int) []ranked {
	depth := max(limit, fuseDepth)
	whole := s.ranked(q, depth)
	segs := splitIntents(q)
	if len(segs) <= 1 {
		return clip(whole, limit)
	}
	if len(segs) > maxIntents {
		segs = mergeTail(segs, maxIntents)
	}
	lists := [][]ranked{whole}
	for _, seg := range segs {
		if r := s.ranked(seg, depth); len(r) > 0 {
			lists = append(lists, r)
		}
	}
	var fused []ranked
	switch s.cfg.Intents {
	case IntentsRoundRobin:
		fused = roundRobin(lists)
	default:
		k := s.cfg.RRFK
		if k == 0 {
			k = 60
		}
		w := s.cfg.WholeWeight
		if w == 0 {
			w = 1
		} else if w < 0 {
			w = float64(len(lists) - 1)
		}
		fused = rrf(lists, k, w, s)
	}
	return clip(fused, limit)
}

func clip(r []ranked, n int) []ranked {
	if len(r) > n {
		return r[:n]
	}
	return r
}

// mergeTail joins the last clauses so there are at most n.
func mergeTail(segs []string, n int) []string {
	out := append([]string(nil), segs[:n-1]...)
	return append(out, strings.Join(segs[n-1:], ", "))
}

// rrf is reciprocal rank fusion: a tool scores the sum of 1/(k+rank) over
// the rankings it appears in. Ties go to the name that sorts first.
func rrf(lists [][]ranked, k, whole float64, s *snapshot) []ranked {
	score := map[int32]float64{}
	var order []int32
	for li, l := range lists {
		w := 1.0
		if li == 0 {
			w = whole
		}
		for i, r := range l {
			if _, ok := score[r.d]; !ok {
				order = append(order, r.d)
			}
			score[r.d] += w / (k + float64(i+1))
		}
	}
	out := make([]ranked, len(order))
	for i, d := range order {
		out[i] = ranked{d, score[d]}
	}
	sortRanked(out, s)
	return out
}

// roundRobin takes the first tool of each ranking in turn (the whole request
// first), skipping tools already taken.
func roundRobin(lists [][]ranked) []ranked {
	var out []ranked
	seen := map[int32]bool{}
	for i := 0; ; i++ {
		more := false
		for _, l := range lists {
			if i >= len(l) {
				continue
			}
			more = true
			if d := l[i].d; !seen[d] {
				seen[d] = true
				out = append(out, ranked{d, 0})
			}
		}
		if !more {
			break
		}
	}
	// Scores fall with position so callers see a ranking.
	for i := range out {
		out[i].score = 1 / float64(i+1)
	}
	return out
}
