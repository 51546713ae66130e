package search

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/agent-dev/agent/tools"
)

// Limits of a model's search call: DefaultSearchLimit when it gives none,
// never more than MaxSearchLimit, so one search cannot flood the context.
const (
	DefaultSearchLimit = 5
	MaxSearchLimit     = 20
)

// Searcher runs the agent's client-side searches over a tool set's deferred
// tools. It re-indexes when the set's version changes, and then only the
// servers whose deferred tools changed.
type Searcher struct {
	set *tools.Set

	mu      sync.Mutex
	version uint64
	built   bool
	ix      *Index
	sums    map[string][32]byte // server -> digest of its deferred tools
	// uses are what the searcher learned before its index was first built,
	// with the dictionary of those that came analysed.
	uses   []Use
	stored *Analysis
	// pending is closed when the load LearnFrom started has taught the
	// searcher; nil when there is none.
	pending chan struct{}
}

// LearnFrom teaches the searcher what load returns, read in the
// background: a start need not wait for 100,000 stored pairs (about 0.1 s
// to read), and the first index, built at the first search or by Index,
// waits for them, so no search ranks without them. The uses may come
// analysed under the Analysis load returns (see NewLearnedAnalysed).
func (s *Searcher) LearnFrom(load func() ([]Use, *Analysis)) {
	done := make(chan struct{})
	s.mu.Lock()
	s.pending = done
	s.mu.Unlock()
	go func() {
		defer close(done)
		uses, stored := load()
		s.learn(stored, uses)
	}()
}

// WaitLearned waits for the load LearnFrom started, if any.
func (s *Searcher) WaitLearned() {
	s.mu.Lock()
	p := s.pending
	s.mu.Unlock()
	if p != nil {
		<-p
	}
}

// NewSearcher returns a Searcher over set's deferred tools.
func NewSearcher(set *tools.Set) *Searcher { return &Searcher{set: set} }

// Search implements the core's Searcher (agent.Searcher): Names select tools, a Pattern is a
// regular expression, and a Query is read as in ModeAuto.
func (s *Searcher) Search(ctx context.Context, call tools.SearchCall) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ix := s.index()
	limit := call.Limit
	switch {
	case limit <= 0:
		limit = DefaultSearchLimit
	case limit > MaxSearchLimit:
		limit = MaxSearchLimit
	}
	var (
		hits []Hit
		err  error
	)
	switch {
	case len(call.Names) > 0:
		hits, err = ix.Search(strings.Join(call.Names, ","), Options{Mode: ModeSelect})
	case call.Pattern != "":
		hits, err = ix.Search(call.Pattern, Options{Mode: ModeRegex, Limit: limit})
	default:
		hits, err = ix.Search(call.Query, Options{Mode: ModeAuto, Limit: limit})
	}
	if err != nil {
		return nil, fmt.Errorf("tool search: %w", err)
	}
	names := make([]string, 0, len(hits))
	for _, h := range hits {
		names = append(names, h.Name)
	}
	return names, nil
}

// Learn adds earlier requests that led to tools (see Index.Learn). Tools
// are named as in the set.
func (s *Searcher) Learn(uses ...Use) { s.learn(nil, uses) }

func (s *Searcher) learn(stored *Analysis, uses []Use) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.built {
		if stored != nil {
			s.stored = stored
		}
		s.uses = append(s.uses, uses...)
		return
	}
	s.ix.LearnAnalysed(stored, uses...)
}

// Forget drops everything the searcher learned.
func (s *Searcher) Forget() {
	s.WaitLearned()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.uses, s.stored = nil, nil
	if s.built {
		s.ix.Forget()
	}
}

// Index returns the index over the set's current deferred tools.
func (s *Searcher) Index() *Index { return s.index() }

func (s *Searcher) index() *Index {
	s.WaitLearned()
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.set.Version()
	if s.built && v == s.version {
		return s.ix
	}
	// Read the version before the tools: a change in between makes the next
	// search look again rather than miss it.
	// Each server's docs are a window of one slice, the servers in the
	// order they first appear (a counting sort): no slice per server grows
	// by doubling, and the first index takes the slice as it is.
	ts := s.set.Deferred()
	count := map[string]int{}
	var order []string
	for _, t := range ts {
		if _, ok := count[t.Server]; !ok {
			order = append(order, t.Server)
		}
		count[t.Server]++
	}
	all := make([]Doc, len(ts))
	byServer := make(map[string][]Doc, len(order))
	at := 0
	for _, srv := range order {
		byServer[srv] = all[at : at : at+count[srv]]
		at += count[srv]
	}
	for _, t := range ts {
		byServer[t.Server] = append(byServer[t.Server], docOf(t))
	}
	sums := make(map[string][32]byte, len(byServer))
	for srv, docs := range byServer {
		sums[srv] = digest(docs)
	}
	if !s.built {
		s.ix = NewLearnedAnalysed(all, DefaultConfig(), s.uses, s.stored)
		s.uses, s.stored = nil, nil
	} else {
		changed := map[string][]Doc{}
		for _, srv := range order {
			if old, ok := s.sums[srv]; !ok || old != sums[srv] {
				changed[srv] = byServer[srv]
			}
		}
		for srv := range s.sums {
			if _, ok := sums[srv]; !ok {
				changed[srv] = nil
			}
		}
		if len(changed) > 0 {
			s.ix.ReplaceServers(changed)
		}
	}
	s.built, s.version, s.sums = true, v, sums
	return s.ix
}

// digest fingerprints what search sees of a server's tools.
func digest(docs []Doc) [32]byte {
	h := sha256.New()
	// Strings go through one reused buffer and schemas as they are: a
	// conversion per field copied every schema (10 MB of garbage at 5,000
	// tools).
	var n [8]byte
	var buf []byte
	field := func(f []byte) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write(f)
	}
	for _, d := range docs {
		for _, f := range []string{d.Name, d.Description} {
			buf = append(buf[:0], f...)
			field(buf)
		}
		field(d.Schema)
		buf = append(buf[:0], d.ServerDescription...)
		field(buf)
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}
