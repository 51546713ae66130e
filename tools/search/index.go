package search

import (
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The fields a tool is indexed in, the indexes of Config.Weight and B.
const (
	// FieldName is the tool name, split into words, plus adjacent words
	// glued ("wordcloud").
	FieldName = iota
	// FieldDescription is the tool's description.
	FieldDescription
	// FieldParams holds parameter names, titles, descriptions and enum
	// values, nested ones too.
	FieldParams
	// FieldServer is the server's name and description.
	FieldServer
	// FieldPhrase holds pairs of adjacent terms of the name and the start of
	// the description, so words that appear together match more.
	FieldPhrase
	// FieldLearned holds the earlier requests that led to the tool (a
	// search that found it, then a call of it): see Index.Learn.
	FieldLearned
	NumFields
)

// Config holds the ranking parameters. DefaultConfig is what the benchmark
// in this package measured best; the fields are exported so the benchmark can
// show what each signal is worth.
type Config struct {
	// K1 is BM25's term-frequency saturation.
	K1 float64
	// Weight and B are each field's weight and length normalisation
	// (0 = none, 1 = full), indexed by FieldName ... FieldPhrase. A field of
	// weight 0 is not indexed.
	Weight [NumFields]float64
	B      [NumFields]float64
	// Stemmer is "porter", "s" (plurals only) or "" (none).
	Stemmer string
	// Cues is the weight of the words a query implies by the values it
	// carries (a path: file and its format; a path and "save": write file;
	// a link: url; "next Wednesday": current date). 0 is off. See cues.go.
	Cues float64
	// Chain lifts a tool that the best hits need first (it makes an input
	// they require and the request does not give) to this share of their
	// score. 0 is off. See chain.go.
	Chain float64
	// StepSlot is the position (from 1) at which the best tool of each step
	// a request implies (cues.go) is placed when it ranks lower. 0 is off.
	StepSlot int
	// Glosses indexes Chinese text with the English glosses of its words
	// (CC-CEDICT) and adds them to a Chinese query, so either language
	// finds tools described in the other. See cedict.go.
	Glosses bool
	// PathStems reads a path in a query as its file name alone, without
	// the directories and the extension.
	PathStems bool
	// Synonyms is the weight of the action-word synonyms of the query's
	// words (save: write, store; fetch: get, retrieve; ...). 0 is off.
	Synonyms float64
	// Paraphrase is the weight of the catalog words a request's
	// paraphrases stand for ("open a PR": create pull request; "wipe":
	// delete; see paraphrase.go). 0 is off. ParaphraseDemote is the
	// weight left to a verb read in its object's sense ("open" in "open a
	// PR", which as a plain word matches a pull request's state).
	Paraphrase       float64
	ParaphraseDemote float64
	// LearnApart scores the learned field on its own (its own saturation)
	// and adds it times this weight, instead of combining it with the
	// other fields before saturation. 0 combines.
	LearnApart float64
	// LearnTrust is how many distinct earlier requests a tool needs for
	// its learned field and its neighbours' vote to count in full: with
	// n, they count min(1, n/LearnTrust), so one use nudges a tool up a
	// few places and never outweighs a clean lexical match, while a tool
	// many requests led to is ranked by them. The same request repeated
	// is one. 0 counts every learned tool in full.
	LearnTrust float64
	// LearnHalfLife fades each learned request by its age (of its newest
	// use) in that count: a request that old counts half. Undated uses do
	// not fade. 0 is no fading.
	LearnHalfLife time.Duration
	// LearnCap is how many distinct earlier requests a tool keeps in its
	// learned field, the newest: one habit repeated a thousand times does
	// not drown what else the tool was used for. 0 means DefaultLearnCap.
	LearnCap int
	// WordNet is the weight of the WordNet synonyms (most frequent sense)
	// of the query's words that the catalog has. 0 is off.
	WordNet float64
	// NameDerived is how much a derivationally related form of a query
	// word (WordNet's: financial and finance, read and reader, merge and
	// merger) counts as that word in the name prior. A tool's name says
	// a thing or an agent (FinanceTool, document_reader, pdf_merger) where
	// a request says the adjective or the verb. A form counts no more than
	// the idf of the word said (a common "find" does not become a rare
	// "finder"), and is scaled down as the synonyms are (ExpandCover).
	// Only the name prior reads these forms: in the first pass, over every
	// field, they matched stems of unrelated words (commit, committal:
	// committer). 0 is off.
	NameDerived float64
	// Joins indexes adjacent name words glued together ("wordcloud"), and
	// matches a query's adjacent words glued.
	Joins bool
	// QueryJoins matches a query's adjacent words glued ("screen shot"
	// finds "screenshot") without indexing names' glued words.
	QueryJoins bool
	// ServerMix is how much of a tool's score comes from how well its server
	// as a whole (all its tools' names and descriptions) matches the query.
	ServerMix float64
	// FeedbackDocs and FeedbackTerms set pseudo-relevance feedback: the best
	// FeedbackTerms terms of the first FeedbackDocs hits are added to the
	// query with weight FeedbackWeight. 0 turns it off.
	FeedbackDocs   int
	FeedbackTerms  int
	FeedbackWeight float64
	// NamePrior adds to a candidate this share of the best score times the
	// idf-weighted share of its name's terms the query has. 0 is off.
	NamePrior float64
	// InputPrior adds this share of the best score times the idf-weighted
	// share of a candidate's required parameters the query names. 0 is off.
	InputPrior float64
	// PriorTrust scales the name prior of a tool with n learned requests
	// by PriorTrust/(PriorTrust+n): a name is the best guess about a tool
	// nobody has used, and earlier requests are better evidence than it
	// once there are several. 0 keeps the full prior whatever was learned.
	PriorTrust float64
	// PhraseFeedback lets feedback add pairs of adjacent terms (phrase
	// field) of the first hits, not only single terms.
	PhraseFeedback bool
	// Diversity is how much a query term counts less for each ranked tool
	// that already covers it (0 off, 1 once covered it no longer counts).
	Diversity float64
	// Intents ranks each intent of a multi-step request (its sentences and
	// clauses) on its own as well as the whole request, and fuses the
	// rankings (see intent.go). IntentsOff ranks the request as one.
	Intents Fusion
	// RRFK is reciprocal rank fusion's k; 0 means 60.
	RRFK float64
	// WholeWeight is the weight of the whole request's ranking in RRF
	// against 1 for each intent; 0 means 1, below 0 the number of intents.
	WholeWeight float64
	// Neighbours is how many of the earlier requests most like a query
	// vote for the tools they led to (see neighbours.go); 0 is off.
	// NeighbourPower sharpens each vote by its request's score relative
	// to the best, and NeighbourWeight scales the vote against the best
	// first-pass score.
	Neighbours      int
	NeighbourPower  float64
	NeighbourWeight float64
	// PriorCover scales the name prior down by this share of how well the
	// best earlier request covers the query: a request that repeats an
	// earlier one is answered by that one's tool, not by a guess from
	// names. 0 keeps the full prior.
	PriorCover float64
	// ExpandCover scales the synonym and WordNet expansions down by this
	// share of how well the best earlier request covers the query:
	// expansions bridge the gap between a user's words and a catalog's,
	// and a request the user's own history already says has none.
	ExpandCover float64
}

// Fusion is how Config.Intents combines the rankings of a request's intents.
type Fusion int

const (
	IntentsOff        Fusion = iota
	IntentsRRF               // reciprocal rank fusion, whole request counted once
	IntentsRoundRobin        // whole request first, then the intents' tops in turn
)

// DefaultConfig returns the tuned defaults.
func DefaultConfig() Config {
	return Config{
		K1: 1.2,
		// b = 0.3 in every field: full length normalisation (0.75) punished
		// the tools described at length on every set.
		Weight:           [NumFields]float64{2, 1, 1, 1, 1, 1},
		B:                [NumFields]float64{0.3, 0.3, 0.3, 0.3, 0.3, 0.3},
		LearnCap:         DefaultLearnCap,
		LearnTrust:       DefaultLearnTrust,
		LearnHalfLife:    DefaultLearnHalfLife,
		Stemmer:          "porter",
		Synonyms:         0.5,
		Paraphrase:       0.5,
		ParaphraseDemote: 0.5,
		FeedbackTerms:    10, // feedback stays off (FeedbackDocs 0): it lost on MetaTool
		FeedbackWeight:   0.3,
		NamePrior:        0.6,
		// Chosen by the worst case over the five sets: min Δ over plain
		// BM25 -0.5 without, +0.3 at 0.2 (BFCL's requests carry values of
		// their tool's parameters), -0.1 at 0.4.
		InputPrior: 0.2,
		QueryJoins: true,
		WordNet:    0.3,
		// A related form is the name's word said in another part of
		// speech: it counts in full. Every half of the five sets held or
		// rose at 0.3, 0.5 and 1, most at 1 (README, "Derived forms").
		NameDerived: 1,
		Cues:        1,
		PathStems:   true,
		Glosses:     true,
		StepSlot:    DefaultSearchLimit, // the last place of a model's first page
		Chain:       0.5,
		// Chosen on the split-half checks (each half after the other's
		// requests), where it held on all six; see the README. 10 voters
		// and 30 are level on those checks (+0.02 for 10); 10 is +0.5 on
		// single-tool requests after MetaTool's history and -0.8 on
		// multi-tool ones, and only 10 meets the single-tool target.
		Neighbours:      10,
		NeighbourPower:  4,
		NeighbourWeight: 1,
		ExpandCover:     1,
	}
}

// analysed is a tool after text analysis: its term counts per field. It is
// kept per server so ReplaceServer re-analyses only what changed.
type analysed struct {
	doc   Doc
	terms []termCount
	lens  [NumFields]float32
	// seq is the name's terms, -1, and the description's first terms, in
	// order, for phrase matches.
	seq []int32
	// uses is how many distinct learned requests the learned field holds.
	uses int32
	// trust scales the learned field and the neighbours' vote for this
	// tool: it grows with the distinct requests that led to it, each
	// faded by its age, up to 1 (Config.LearnTrust, LearnHalfLife).
	trust float32
	// reqs are those requests (learned ids), for the neighbour vote.
	reqs []int32
	// lterms are the terms only the learned field has, when the learned
	// field was added after the tool's own text (worker.addLearned): the
	// learned counts of terms the text has are in terms. Kept apart, the
	// text's terms are not copied again, and each entry is half the size.
	lterms []learnedCount
}

type termCount struct {
	id int32 // the analyzer's term number
	tf [NumFields]uint16
}

// learnedCount is a term of the learned field alone and its count: the
// term number in two halves, so an entry is 6 bytes, not an int32 and a
// uint16 padded to 8 (a tenth of the index at 10,000 tools with 100,000
// learned requests).
type learnedCount struct {
	lo, hi uint16
	n      uint16
}

func newLearnedCount(id int32, n uint16) learnedCount {
	return learnedCount{uint16(uint32(id)), uint16(uint32(id) >> 16), n}
}

// id is lc's term number.
func (lc learnedCount) id() int32 { return int32(uint32(lc.lo) | uint32(lc.hi)<<16) }

// termCount is lc as a termCount.
func (lc learnedCount) termCount() termCount {
	tc := termCount{id: lc.id()}
	tc.tf[FieldLearned] = lc.n
	return tc
}

// posting is one (document, precomputed score contribution) pair.
type posting struct {
	doc    int32
	impact float32
}

// snapshot is an immutable, searchable index.
type snapshot struct {
	cfg   Config
	docs  []*analysed
	vocab map[string]int32
	// local maps the analyzer's term numbers to this snapshot's (-1: not
	// in use), global the other way.
	local, global []int32
	// norm[d][f] is field f's weight over its length normalisation for doc
	// d, the factor of a term frequency in BM25F.
	norm      [][NumFields]float32
	avgPhrase float64
	// pairBits has a bit set for each pair of adjacent terms (phrase field)
	// of any doc, by hash: a query's pairs are mostly found nowhere, and
	// this rules them out before their postings are walked.
	pairBits []uint64
	seqs     [][]int32 // docs[d].seq, at hand without a pointer chase
	// pairDF counts the docs each pair of adjacent terms occurs in, keyed
	// by pairKey of their local ids. Only feedback needs it, so the first
	// search that does builds it.
	pairOnce sync.Once
	pairDF   map[uint64]int32
	postings [][]posting // by term id
	// names maps a lower-cased tool name (and ID) to documents, for exact
	// name matches and select:.
	names map[string][]int32
	// Server level: docServer[d] is the server of doc d; serverPost[t] are
	// the servers' BM25 contributions of term t.
	servers   []string
	docServer []int32
	// A server's docs are contiguous: serverStart[sv] up to
	// serverStart[sv+1].
	serverStart []int32
	// steps memoises stepTool: step query -> best doc (int32, -1: none).
	steps sync.Map
	// required[d] memoises requiredTerms(d), worked out when first needed.
	required   []atomic.Pointer[[][]int32]
	serverPost [][]posting
	idf        []float64
	// neigh indexes the learned requests one by one; nil when none.
	neigh *neighbourIndex
}

// Index is a tool search index. Searches are safe for concurrent use, also
// with ReplaceServer, which swaps in a new snapshot.
type Index struct {
	mu       sync.Mutex // serialises writers
	cfg      Config
	an       *analyzer // the index's term dictionary (ids, strings)
	seq      *worker   // analyses small updates; see analyseAll
	servers  []string  // in first-seen order
	byServer map[string][]*analysed
	learned  learned
	snap     atomic.Pointer[snapshot]
}

// New indexes docs with DefaultConfig.
func New(docs []Doc) *Index { return NewWithConfig(docs, DefaultConfig()) }

// NewWithConfig indexes docs with cfg. Docs without a name are skipped, and
// of two docs with the same server and key only the first is kept.
func NewWithConfig(docs []Doc, cfg Config) *Index { return newIndex(docs, cfg, nil, nil) }

func newIndex(docs []Doc, cfg Config, uses []Use, stored *Analysis) *Index {
	if cfg.LearnCap == 0 {
		cfg.LearnCap = DefaultLearnCap
	}
	ix := &Index{cfg: cfg, an: newAnalyzer(cfg.Stemmer), byServer: map[string][]*analysed{}}
	var all []*analysed
	uses, m := usable(uses, stored, cfg.Stemmer)
	if len(uses) >= parallelUses && cfg.Weight[FieldLearned] > 0 {
		// A long-used store: its requests are analysed on the other CPUs
		// while the catalog is analysed here, and the learned fields are
		// added to the tools after.
		uses = oldestFirst(uses)
		done := make(chan *usesAnalysis)
		go func() { done <- analyseUses(uses, m) }()
		all = ix.analyseAllWith(docs, false)
		ix.learned.addBulk(uses, remapUses(<-done, ix.an, uses, m))
		ix.addLearned(all)
	} else {
		ix.learned.add(ix.an, uses, nil, m)
		all = ix.analyseAll(docs)
	}
	for _, a := range all {
		s := a.doc.Server
		if _, ok := ix.byServer[s]; !ok {
			ix.servers = append(ix.servers, s)
		}
		ix.byServer[s] = append(ix.byServer[s], a)
	}
	ix.snap.Store(ix.finalize())
	return ix
}

// ReplaceServer swaps every tool of server for docs (none removes the
// server). Only these docs are analysed again; the rest of the index is
// rebuilt from cached analyses, since idf and average lengths are global.
func (ix *Index) ReplaceServer(server string, docs []Doc) {
	ix.ReplaceServers(map[string][]Doc{server: docs})
}

// ReplaceServers is ReplaceServer for several servers at once, with one
// rebuild.
func (ix *Index) ReplaceServers(changed map[string][]Doc) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.replaceLocked(changed)
}

func (ix *Index) replaceLocked(changed map[string][]Doc) {
	servers := make([]string, 0, len(changed))
	for s := range changed {
		servers = append(servers, s)
	}
	sort.Strings(servers) // new servers join in a stable order
	var all []Doc
	for _, server := range servers {
		for _, d := range changed[server] {
			d.Server = server
			all = append(all, d)
		}
		if _, had := ix.byServer[server]; had {
			delete(ix.byServer, server)
			ix.servers = slices.DeleteFunc(ix.servers, func(s string) bool { return s == server })
		}
	}
	for _, a := range ix.analyseAll(all) {
		s := a.doc.Server
		if _, ok := ix.byServer[s]; !ok {
			ix.servers = append(ix.servers, s)
		}
		ix.byServer[s] = append(ix.byServer[s], a)
	}
	ix.snap.Store(ix.finalize())
}

// Len is the number of indexed tools.
func (ix *Index) Len() int { return len(ix.snap.Load().docs) }

// finalize builds a snapshot from the cached analyses.
func (ix *Index) finalize() *snapshot {
	cfg := ix.cfg
	s := &snapshot{cfg: cfg, vocab: map[string]int32{}, names: map[string][]int32{}}
	for _, srv := range ix.servers {
		if len(ix.byServer[srv]) == 0 {
			continue
		}
		s.serverStart = append(s.serverStart, int32(len(s.docs)))
		for _, a := range ix.byServer[srv] {
			s.docs = append(s.docs, a)
			s.docServer = append(s.docServer, int32(len(s.servers)))
		}
		s.servers = append(s.servers, srv)
	}
	n := len(s.docs)
	s.serverStart = append(s.serverStart, int32(n))
	s.required = make([]atomic.Pointer[[][]int32], n)
	var avg [NumFields]float64
	// Number the terms in use densely: the analyzer's numbering also has
	// terms of tools since replaced.
	local := make([]int32, len(ix.an.termStr))
	learnedDocs := 0 // docs with learned requests
	for d, a := range s.docs {
		for f := range NumFields {
			avg[f] += float64(a.lens[f])
		}
		if a.lens[FieldLearned] > 0 {
			learnedDocs++
		}
		for _, tc := range a.terms {
			local[tc.id]++
		}
		for _, lc := range a.lterms {
			local[lc.id()]++
		}
		lname := strings.ToLower(a.doc.Name)
		s.names[lname] = append(s.names[lname], int32(d))
		if a.doc.ID != "" && strings.ToLower(a.doc.ID) != lname {
			lid := strings.ToLower(a.doc.ID)
			s.names[lid] = append(s.names[lid], int32(d))
		}
	}
	var df []int32
	for id, c := range local {
		if c == 0 {
			local[id] = -1
			continue
		}
		local[id] = int32(len(df))
		s.global = append(s.global, int32(id))
		s.vocab[ix.an.termStr[id]] = int32(len(df))
		df = append(df, c)
	}
	for f := range NumFields {
		docs := n
		if f == FieldLearned {
			// The average over the tools that were used: a tool used a
			// few times is not long for a field most tools lack.
			docs = learnedDocs
		}
		avg[f] = math.Max(avg[f]/math.Max(float64(docs), 1), 1)
	}
	idf := make([]float64, len(df))
	for t, c := range df {
		idf[t] = math.Log(1 + (float64(n)-float64(c)+0.5)/(float64(c)+0.5))
	}
	s.idf = idf
	s.local = local
	// The requests' own index is built beside the tools' postings: it
	// reads only the docs' requests and the term numbering, fixed by now.
	var neigh chan *neighbourIndex
	if cfg.Neighbours > 0 && learnedDocs > 0 {
		neigh = make(chan *neighbourIndex, 1)
		go func() { neigh <- buildNeighbours(s.docs, local, len(df), &ix.learned) }()
	}
	s.avgPhrase = avg[FieldPhrase]
	s.fillPostings(df, avg)
	ix.buildServerLevel(s, local)
	s.buildPairBits()
	if neigh != nil {
		s.neigh = <-neigh
	}

	return s
}

// buildServerLevel indexes each server as one document made of its own name
// and description and all its tools' names and descriptions, scored with
// plain BM25 over servers.
func (ix *Index) buildServerLevel(s *snapshot, local []int32) {
	ns := len(s.servers)
	s.serverPost = make([][]posting, len(s.postings))
	if ix.cfg.ServerMix == 0 || ns == 0 {
		return
	}
	tf := make([]map[int32]float64, ns)
	lens := make([]float64, ns)
	total := 0.0
	for d, a := range s.docs {
		sv := s.docServer[d]
		if tf[sv] == nil {
			tf[sv] = map[int32]float64{}
		}
		for _, tc := range a.terms {
			c := float64(tc.tf[FieldName]) + float64(tc.tf[FieldDescription])
			if c == 0 {
				continue
			}
			tf[sv][local[tc.id]] += c
			lens[sv] += c
			total += c
		}
	}
	// The server's own text counts once, not once per tool.
	for d, a := range s.docs {
		sv := s.docServer[d]
		if d > 0 && s.docServer[d-1] == sv {
			continue
		}
		for _, tc := range a.terms {
			if c := float64(tc.tf[FieldServer]); c > 0 {
				tf[sv][local[tc.id]] += c
				lens[sv] += c
				total += c
			}
		}
	}
	avg := math.Max(total/float64(ns), 1)
	sdf := make([]int, len(s.postings))
	for _, m := range tf {
		for t := range m {
			sdf[t]++
		}
	}
	const k1, b = 1.2, 0.75
	for sv, m := range tf {
		for t, c := range m {
			idf := math.Log(1 + (float64(ns)-float64(sdf[t])+0.5)/(float64(sdf[t])+0.5))
			tfn := c / (1 - b + b*lens[sv]/avg)
			s.serverPost[t] = append(s.serverPost[t], posting{int32(sv), float32(idf * tfn * (k1 + 1) / (k1 + tfn))})
		}
	}
}

// parallelPostings is the catalog size from which fillPostings uses two
// CPUs.
const parallelPostings = 2048

// fillPostings computes each doc's term impacts into the postings (df[t]
// of them at most for term t), in doc order. All postings live in one slab:
// one allocation instead of one per term. A large catalog is filled in two
// halves at once: the second half of each term's postings starts where the
// first half's count of it ends, and is moved down after if the first half
// skipped any (an impact of zero). At 10,000 tools with 100,000 learned
// requests the fill was a sixth of the build, all on one CPU.
func (s *snapshot) fillPostings(df []int32, avg [NumFields]float64) {
	n := len(s.docs)
	off := make([]int32, len(df)+1)
	for t, c := range df {
		off[t+1] = off[t] + c
	}
	slab := make([]posting, off[len(df)])
	s.norm = make([][NumFields]float32, n)
	fill := func(lo, hi int, next []int32) {
		for d := lo; d < hi; d++ {
			a := s.docs[d]
			var norm [NumFields]float64
			for f := range NumFields {
				norm[f] = s.cfg.Weight[f] / (1 - s.cfg.B[f] + s.cfg.B[f]*float64(a.lens[f])/avg[f])
				if f == FieldLearned {
					norm[f] *= float64(a.trust)
				}
				s.norm[d][f] = float32(norm[f])
			}
			for _, tc := range a.terms {
				id := s.local[tc.id]
				imp := float32(s.impact(tc, id, norm))
				if imp == 0 {
					continue
				}
				slab[next[id]] = posting{int32(d), imp}
				next[id]++
			}
			for _, lc := range a.lterms {
				id := s.local[lc.id()]
				imp := float32(s.impact(lc.termCount(), id, norm))
				if imp == 0 {
					continue
				}
				slab[next[id]] = posting{int32(d), imp}
				next[id]++
			}
		}
	}
	mid := n
	if n >= parallelPostings && runtime.GOMAXPROCS(0) > 1 {
		mid = n / 2
	}
	first := slices.Clone(off[:len(df)])
	var second, secondStart []int32
	var wg sync.WaitGroup
	if mid < n {
		second = slices.Clone(first)
		for _, a := range s.docs[:mid] {
			for _, tc := range a.terms {
				second[s.local[tc.id]]++
			}
			for _, lc := range a.lterms {
				second[s.local[lc.id()]]++
			}
		}
		secondStart = slices.Clone(second)
		wg.Go(func() { fill(mid, n, second) })
	}
	fill(0, mid, first)
	wg.Wait()
	s.postings = make([][]posting, len(df))
	for t := range df {
		end := first[t]
		if second != nil {
			if first[t] < secondStart[t] {
				copy(slab[first[t]:], slab[secondStart[t]:second[t]])
			}
			end += second[t] - secondStart[t]
		}
		s.postings[t] = slab[off[t]:end:end]
	}
}

// impact is term tc's BM25F contribution to a doc with the field factors
// norm: its fields' weighted frequencies combined, then saturated. With
// Config.LearnApart the learned field is saturated on its own and added.
func (s *snapshot) impact(tc termCount, id int32, norm [NumFields]float64) float64 {
	k1 := s.cfg.K1
	tfw, learned := 0.0, 0.0
	for f := range NumFields {
		if f == FieldLearned && s.cfg.LearnApart > 0 {
			learned = float64(tc.tf[f]) * norm[f]
			continue
		}
		tfw += float64(tc.tf[f]) * norm[f]
	}
	v := 0.0
	if tfw > 0 {
		v = tfw * (k1 + 1) / (k1 + tfw)
	}
	if learned > 0 {
		v += s.cfg.LearnApart * learned * (k1 + 1) / (k1 + learned)
	}
	return s.idf[id] * v
}

// allTerms yields a's terms, those only its learned field has included.
func (a *analysed) allTerms() func(yield func(termCount) bool) {
	return func(yield func(termCount) bool) {
		for _, tc := range a.terms {
			if !yield(tc) {
				return
			}
		}
		for _, lc := range a.lterms {
			if !yield(lc.termCount()) {
				return
			}
		}
	}
}
