package search

import (
	"container/heap"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Search runs one query. See Mode for how a query is read. A query that
// matches nothing gives no hits and no error; an empty query or a regular
// expression that does not compile is an error.
func (ix *Index) Search(query string, opts Options) ([]Hit, error) {
	s := ix.snap.Load()
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	q := strings.TrimSpace(query)
	mode := opts.Mode
	if mode == "" || mode == ModeAuto {
		switch {
		case len(q) >= 7 && strings.EqualFold(q[:7], "select:"):
			mode = ModeSelect
		case len(q) >= 3 && q[0] == '/' && q[len(q)-1] == '/':
			mode, q = ModeRegex, q[1:len(q)-1]
		default:
			mode = ModeBM25
		}
	}
	if mode == ModeSelect && len(q) >= 7 && strings.EqualFold(q[:7], "select:") {
		q = q[7:]
	}
	if strings.TrimSpace(q) == "" {
		return nil, ErrEmptyQuery
	}
	switch mode {
	case ModeBM25:
		return s.rank(q, limit), nil
	case ModeRegex:
		return s.regex(q, limit)
	case ModeSelect:
		return s.selectNames(q)
	}
	return nil, fmt.Errorf("unknown search mode %q: use auto, bm25, regex or select", opts.Mode)
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// queryTerms analyses a query into term ids and weights. Terms the catalog
// does not have are dropped: they cannot score.
func (s *snapshot) queryTerms(q string, terms, cues []string, synScale float64) map[int32]float64 {
	an := analyzer{stem: stemmerFunc(s.cfg.Stemmer)} // no memo: Search must not write shared state
	qt := s.wordCounts(terms)
	if s.cfg.Joins || s.cfg.QueryJoins {
		an.joins(q, func(t string) {
			if id, ok := s.vocab[t]; ok {
				qt[id]++
			}
		})
	}
	dampen(qt)
	// Expansions: a term the query has keeps the larger weight.
	expand := func(text string, w float64) {
		an.terms(text, func(t string) {
			if id, ok := s.vocab[t]; ok {
				qt[id] = max(qt[id], w)
			}
		})
	}
	// A verb read in its object's sense ("open" a PR) is not expanded in
	// its other senses (open: navigate, read).
	var paras []paraphrase
	demoted := map[string]bool{}
	if s.cfg.Paraphrase > 0 {
		paras = paraphrases(q)
		for _, p := range paras {
			if p.demote != "" {
				an.terms(p.demote, func(t string) { demoted[t] = true })
			}
		}
	}
	if s.cfg.Synonyms > 0 {
		for _, t := range terms {
			if demoted[t] {
				continue
			}
			for _, e := range verbSynonyms[t] {
				expand(e, s.cfg.Synonyms*synScale)
			}
		}
	}
	for t := range demoted {
		if id, ok := s.vocab[t]; ok && qt[id] > 0 && s.cfg.ParaphraseDemote > 0 {
			qt[id] = min(qt[id], s.cfg.ParaphraseDemote)
		}
	}
	for _, p := range paras {
		expand(p.expand, s.cfg.Paraphrase*synScale)
	}
	if s.cfg.Cues > 0 {
		for _, c := range cues {
			expand(c, s.cfg.Cues)
		}
	}
	if s.cfg.Glosses && hasHan(q) {
		expand(glosses(q, nil), 1)
	}
	if s.cfg.WordNet > 0 {
		for _, t := range terms {
			if demoted[t] {
				continue
			}
			for _, e := range wordnetSynonyms(s.cfg.Stemmer, t) {
				expand(e, s.cfg.WordNet*synScale)
			}
		}
	}
	return qt
}

// derivedTerms maps the catalog's terms that are derivationally related
// forms of the query's words to Config.NameDerived, for the name prior,
// scaled as the synonyms are (Config.ExpandCover): a form bridges a user's
// words and a catalog's, and where the user's own earlier requests cover
// the query there is no gap to bridge.
func (s *snapshot) derivedTerms(terms []string, scale float64) map[int32]float64 {
	w := s.cfg.NameDerived * scale
	if w <= 0 || s.cfg.NamePrior == 0 {
		return nil
	}
	an := analyzer{stem: stemmerFunc(s.cfg.Stemmer)}
	var dq map[int32]float64
	for _, t := range terms {
		qid, said := s.vocab[t]
		for _, e := range derivedForms(s.cfg.Stemmer, t) {
			an.terms(e, func(x string) {
				id, ok := s.vocab[x]
				if !ok {
					return
				}
				// A form counts no more than the word said: "find", in
				// most requests and descriptions, does not say all that a
				// name's rare "finder" would.
				f := w
				if said && s.idf[qid] < s.idf[id] {
					f *= s.idf[qid] / s.idf[id]
				}
				if dq == nil {
					dq = map[int32]float64{}
				}
				dq[id] = max(dq[id], f)
			})
		}
	}
	return dq
}

// wordCounts counts the query's words that the catalog has, by term id.
func (s *snapshot) wordCounts(terms []string) map[int32]float64 {
	qt := map[int32]float64{}
	for _, t := range terms {
		if id, ok := s.vocab[t]; ok {
			qt[id]++
		}
	}
	return qt
}

// dampen turns counts into weights: a word said twice matters more, but
// not twice as much.
func dampen(qt map[int32]float64) {
	for t, c := range qt {
		qt[t] = 1 + math.Log(c)
	}
}

// sortedTerms returns the terms of qt in order: scores summed in a map's
// order differ in their last bits from one search to the next, and two
// tools that tie would swap places between identical searches.
func sortedTerms(qt map[int32]float64) []int32 { return slices.Sorted(maps.Keys(qt)) }

var scorePool sync.Pool // *[]float32

func getScores(n int) *[]float32 {
	p, _ := scorePool.Get().(*[]float32)
	if p == nil || cap(*p) < n {
		b := make([]float32, n)
		return &b
	}
	*p = (*p)[:n]
	clear(*p)
	return p
}

func (s *snapshot) rank(query string, limit int) []Hit {
	q := truncate(query, maxQueryBytes)
	if len(s.docs) == 0 {
		return []Hit{}
	}
	v := readValues(q)
	var top []ranked
	if s.cfg.Intents != IntentsOff {
		top = s.rankIntents(q, limit)
	} else {
		top = s.rankedValues(q, v, limit)
	}
	if s.cfg.StepSlot > 0 {
		top = s.placeSteps(v.steps, top)
	}
	exact := s.exactNames(q)
	var out []Hit
	seen := map[int32]bool{}
	best := 0.0
	if len(top) > 0 {
		best = top[0].score
	}
	for i, d := range exact {
		if len(out) >= limit {
			break
		}
		seen[d] = true
		out = append(out, s.hit(d, best+float64(len(exact)-i)))
	}
	for _, r := range top {
		if len(out) >= limit {
			break
		}
		if !seen[r.d] {
			out = append(out, s.hit(r.d, r.score))
		}
	}
	if out == nil {
		out = []Hit{}
	}
	return out
}

// placeSteps puts the best tool of each step the request implies (a path to
// save to: write file; "next Wednesday": the current date) at position
// StepSlot of top, unless it is already there or higher. The request's own
// words are about the rest of the task and outscore such a tool, which shares
// none of them; a search whose first page lacks it makes the model search
// again or guess.
func (s *snapshot) placeSteps(steps []string, top []ranked) []ranked {
	slot := s.cfg.StepSlot - 1
	for _, step := range steps {
		d, ok := s.stepTool(step)
		if !ok {
			continue
		}
		i := slices.IndexFunc(top, func(r ranked) bool { return r.d == d })
		if i >= 0 && i <= slot {
			continue
		}
		if i >= 0 {
			top = slices.Delete(top, i, i+1)
		}
		score := 0.0
		if slot < len(top) {
			score = top[slot].score
		} else if len(top) > 0 {
			score = top[len(top)-1].score
		}
		top = slices.Insert(top, min(slot, len(top)), ranked{d, score})
	}
	return top
}

// stepTool returns the best tool for a step's query. Steps are a few fixed
// queries, so each is ranked once per snapshot.
func (s *snapshot) stepTool(step string) (int32, bool) {
	if v, ok := s.steps.Load(step); ok {
		d := v.(int32)
		return d, d >= 0
	}
	d := int32(-1)
	if best := s.ranked(step, 1); len(best) > 0 {
		d = best[0].d
	}
	v, _ := s.steps.LoadOrStore(step, d)
	d = v.(int32)
	return d, d >= 0
}

// ranked scores q over the catalog (terms, phrases, synonyms, feedback,
// second pass) and returns its best limit tools that score above zero.
func (s *snapshot) ranked(q string, limit int) []ranked {
	return s.rankedValues(q, readValues(q), limit)
}

// rankedValues is ranked with q's values already read.
func (s *snapshot) rankedValues(q string, v requestValues, limit int) []ranked {
	n := len(s.docs)
	// The query's terms, analysed once for terms, pairs and synonyms.
	var terms []string
	an := analyzer{stem: stemmerFunc(s.cfg.Stemmer)}
	text := q
	if s.cfg.PathStems {
		text = v.text
	}
	an.terms(text, func(t string) { terms = append(terms, t) })
	votes, cover := s.neighbourVotes(terms)
	synScale := 1 - s.cfg.ExpandCover*cover
	qt := s.queryTerms(q, terms, v.cues, synScale)
	if len(qt) == 0 {
		return nil
	}
	buf := getScores(n)
	defer scorePool.Put(buf)
	scores := *buf
	for _, t := range sortedTerms(qt) {
		w := qt[t]
		for _, p := range s.postings[t] {
			scores[p.doc] += float32(w) * p.impact
		}
	}
	qp := s.queryPairs(terms)
	s.phrases(scores, qp)
	if s.cfg.FeedbackDocs > 0 && s.cfg.FeedbackTerms > 0 {
		s.feedback(scores, qt, qp)
	}
	if s.cfg.ServerMix > 0 {
		s.mixServers(scores, qt)
	}
	if s.cfg.Chain > 0 {
		s.chain(scores, qt)
	}
	top := s.rerank(scores, qt, s.derivedTerms(terms, synScale), votes, cover, limit)
	for i, r := range top {
		if scores[r.d] <= 0 {
			return top[:i]
		}
	}
	return top
}

func (s *snapshot) hit(d int32, score float64) Hit {
	doc := s.docs[d].doc
	return Hit{ID: doc.ID, Name: doc.Name, Server: doc.Server, Score: math.Round(score*1000) / 1000, Description: doc.Description}
}

// feedback adds to scores the best terms of the first-pass top documents
// (pseudo-relevance feedback): a query that says "meeting point" also finds
// tools whose descriptions share the vocabulary of the tools it matched.
func (s *snapshot) feedback(scores []float32, qt map[int32]float64, qp map[uint64]float64) {
	cfg := s.cfg
	top := topK(scores, cfg.FeedbackDocs, s)
	if len(top) == 0 || scores[top[0]] <= 0 {
		return
	}
	max := scores[top[0]]
	cand := map[int32]float64{}
	pairCand := map[uint64]float64{}
	for _, d := range top {
		if scores[d] <= 0 {
			break
		}
		rel := float64(scores[d] / max)
		for t, imp := range s.termImpacts(d) {
			if _, inQuery := qt[t]; !inQuery {
				cand[t] += rel * imp
			}
		}
		if cfg.PhraseFeedback && cfg.Weight[FieldPhrase] > 0 {
			s.pairCandidates(d, rel, qp, pairCand)
		}
	}
	type tw struct {
		t    uint64
		pair bool
		w    float64
	}
	var ts []tw
	for t, w := range cand {
		ts = append(ts, tw{uint64(t), false, w})
	}
	for k, w := range pairCand {
		ts = append(ts, tw{k, true, w})
	}
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].w != ts[j].w {
			return ts[i].w > ts[j].w
		}
		if ts[i].pair != ts[j].pair {
			return !ts[i].pair
		}
		return ts[i].t < ts[j].t
	})
	if len(ts) > cfg.FeedbackTerms {
		ts = ts[:cfg.FeedbackTerms]
	}
	if len(ts) == 0 {
		return
	}
	for _, e := range ts {
		w := float32(cfg.FeedbackWeight * e.w / ts[0].w)
		if e.pair {
			s.addPair(scores, s.pairHits(e.t, nil), float64(w))
			continue
		}
		for _, p := range s.postings[e.t] {
			scores[p.doc] += w * p.impact
		}
	}
}

// termImpacts yields doc d's terms with their BM25F weights, as in its
// postings: worked out again for the few docs feedback reads rather than
// kept for every doc.
func (s *snapshot) termImpacts(d int32) func(yield func(int32, float64) bool) {
	return func(yield func(int32, float64) bool) {
		var norm [NumFields]float64
		for f, v := range s.norm[d] {
			norm[f] = float64(v)
		}
		for tc := range s.docs[d].allTerms() {
			id := s.local[tc.id]
			if id < 0 {
				continue
			}
			imp := s.impact(tc, id, norm)
			if imp == 0 {
				continue
			}
			if !yield(id, float64(float32(imp))) {
				return
			}
		}
	}
}

// mixServers adds to each tool a share of its server's score, scaled to the
// tool scores, so siblings of a server that fits the query rise together.
func (s *snapshot) mixServers(scores []float32, qt map[int32]float64) {
	ss := make([]float32, len(s.servers))
	for _, t := range sortedTerms(qt) {
		w := qt[t]
		for _, p := range s.serverPost[t] {
			ss[p.doc] += float32(w) * p.impact
		}
	}
	var maxS, maxD float32
	for _, v := range ss {
		maxS = max(maxS, v)
	}
	for _, v := range scores {
		maxD = max(maxD, v)
	}
	if maxS == 0 || maxD == 0 {
		return
	}
	k := float32(s.cfg.ServerMix) * maxD / maxS
	for d := range scores {
		scores[d] += k * ss[s.docServer[d]]
	}
}

// exactNames finds tools named verbatim in the query: the whole query, or a
// word of it that is a compound name (snake_case, kebab-case, camelCase,
// dotted), since a plain word like "search" is more often prose than a name.
func (s *snapshot) exactNames(q string) []int32 {
	var out []int32
	seen := map[int32]bool{}
	add := func(w string) {
		for _, d := range s.names[strings.ToLower(w)] {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	add(strings.TrimSpace(q))
	for _, w := range strings.Fields(q) {
		w = strings.TrimFunc(w, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
		})
		if isCompound(w) {
			add(w)
		}
	}
	return out
}

func isCompound(w string) bool {
	if strings.ContainsAny(w, "_-.") {
		return true
	}
	for i := 1; i < len(w); i++ {
		if w[i] >= 'A' && w[i] <= 'Z' && w[i-1] >= 'a' && w[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// topK returns the indexes of the k best scores, best first; ties go to the
// name that sorts first, so results are deterministic.
func topK(scores []float32, k int, s *snapshot) []int32 {
	h := &docHeap{s: s, sc: scores}
	for d, v := range scores {
		if v <= 0 {
			continue
		}
		if len(h.ids) < k {
			heap.Push(h, int32(d))
		} else if v >= scores[h.ids[0]] && h.less(h.ids[0], int32(d)) {
			// Most docs score below the weakest kept: the first comparison
			// turns them away without the tie-break on names.
			h.ids[0] = int32(d)
			heap.Fix(h, 0)
		}
	}
	out := make([]int32, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(int32)
	}
	return out
}

// docHeap is a min-heap of documents by score: its root is the weakest kept.
type docHeap struct {
	ids []int32
	sc  []float32
	s   *snapshot
}

// less reports whether a ranks below b.
func (h *docHeap) less(a, b int32) bool {
	if h.sc[a] != h.sc[b] {
		return h.sc[a] < h.sc[b]
	}
	return h.s.docs[a].doc.Name > h.s.docs[b].doc.Name
}
func (h *docHeap) Len() int           { return len(h.ids) }
func (h *docHeap) Less(i, j int) bool { return h.less(h.ids[i], h.ids[j]) }
func (h *docHeap) Swap(i, j int)      { h.ids[i], h.ids[j] = h.ids[j], h.ids[i] }
func (h *docHeap) Push(x any)         { h.ids = append(h.ids, x.(int32)) }
func (h *docHeap) Pop() any {
	x := h.ids[len(h.ids)-1]
	h.ids = h.ids[:len(h.ids)-1]
	return x
}

func (s *snapshot) regex(pattern string, limit int) ([]Hit, error) {
	if len(pattern) > maxPatternLen {
		return nil, fmt.Errorf("regex is %d characters long: the limit is %d", len(pattern), maxPatternLen)
	}
	re, err := regexp.Compile("(?i)" + pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid regex %q: %w", pattern, err)
	}
	type m struct {
		d     int32
		score float64
	}
	var ms []m
	for d, a := range s.docs {
		score := 0.0
		if re.MatchString(a.doc.Name) {
			score += 2
		}
		if re.MatchString(a.doc.Description) {
			score++
		}
		if score > 0 {
			ms = append(ms, m{int32(d), score})
		}
	}
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].score != ms[j].score {
			return ms[i].score > ms[j].score
		}
		return s.docs[ms[i].d].doc.Name < s.docs[ms[j].d].doc.Name
	})
	out := []Hit{}
	for _, x := range ms {
		if len(out) >= limit {
			break
		}
		out = append(out, s.hit(x.d, x.score))
	}
	return out, nil
}

// selectNames returns the named tools in the order given. Names are matched
// exactly, then ignoring case. Unknown names are skipped; if none is known
// that is an error naming them.
func (s *snapshot) selectNames(list string) ([]Hit, error) {
	out := []Hit{}
	seen := map[int32]bool{}
	var missing []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		ds := append([]int32(nil), s.names[strings.ToLower(name)]...)
		// Prefer the exact spelling when case-folding joins several tools.
		sort.SliceStable(ds, func(i, j int) bool {
			return s.docs[ds[i]].doc.Name == name && s.docs[ds[j]].doc.Name != name
		})
		if len(ds) == 0 {
			missing = append(missing, name)
		}
		for _, d := range ds {
			if !seen[d] {
				seen[d] = true
				out = append(out, s.hit(d, 1))
			}
		}
	}
	if len(out) == 0 {
		if len(missing) == 0 {
			return nil, ErrEmptyQuery
		}
		return nil, fmt.Errorf("no tool named %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// verbSynonyms maps the stem of an action word to words software tools use
// for the same action. Tool names use a small verb vocabulary (get, list,
// create, write, delete...) while people use many more.
var verbSynonyms = func() map[string][]string {
	groups := [][]string{
		{"save", "write", "store", "export"},
		{"fetch", "get", "retrieve", "download"},
		{"find", "search", "lookup", "query"},
		{"remove", "delete"},
		{"edit", "update", "modify", "change"},
		{"create", "make", "new", "add", "generate"},
		{"show", "display", "view", "list"},
		{"run", "execute", "launch"},
		{"open", "navigate", "visit", "browse"},
		{"read", "load", "view", "open"},
		{"send", "post", "publish"},
		{"summarize", "summary"},
		{"picture", "image", "photo"},
		{"page", "website", "site", "web"},
		{"folder", "directory"},
	}
	m := map[string][]string{}
	for _, g := range groups {
		for _, w := range g {
			k := stem(w)
			for _, o := range g {
				if o != w {
					m[k] = append(m[k], o)
				}
			}
		}
	}
	return m
}()
