package search

import (
	"slices"
	"sort"
	"strings"
	"time"
)

// Use is one earlier request that led to a tool: a search whose results
// held the tool, followed by a call of it. Tool is a Doc's ID or name.
type Use struct {
	Query string    `json:"query"`
	Tool  string    `json:"tool"`
	At    time.Time `json:"at,omitzero"`
}

// DefaultLearnCap is how many distinct earlier requests a tool keeps in its
// learned field when Config.LearnCap is 0.
const DefaultLearnCap = 256

// learned is what an index has learned from use: for each tool (as Use.Tool
// names it), its distinct requests, each with the order it was last seen in.
type learned struct {
	seq   int64
	tools map[string]map[string]int64 // tool -> normalised request -> last seen
}

// add records uses in order and returns the tools they name.
func (l *learned) add(uses []Use) map[string]bool {
	if l.tools == nil {
		l.tools = map[string]map[string]int64{}
	}
	// Oldest first, so the newest of a repeated request is the one kept.
	if !slices.IsSortedFunc(uses, func(a, b Use) int { return a.At.Compare(b.At) }) {
		uses = slices.Clone(uses)
		slices.SortStableFunc(uses, func(a, b Use) int { return a.At.Compare(b.At) })
	}
	touched := map[string]bool{}
	for _, u := range uses {
		q := normaliseRequest(u.Query)
		tool := strings.TrimSpace(u.Tool)
		if q == "" || tool == "" {
			continue
		}
		qs := l.tools[tool]
		if qs == nil {
			qs = map[string]int64{}
			l.tools[tool] = qs
		}
		l.seq++
		qs[q] = l.seq
		touched[tool] = true
	}
	return touched
}

// requests returns the newest limit distinct requests of doc d, newest first.
func (l *learned) requests(d Doc, limit int) []string {
	if len(l.tools) == 0 {
		return nil
	}
	qs := l.tools[d.Key()]
	if other := l.tools[d.Name]; d.ID != "" && d.ID != d.Name && len(other) > 0 {
		merged := make(map[string]int64, len(qs)+len(other))
		for q, s := range other {
			merged[q] = s
		}
		for q, s := range qs {
			merged[q] = max(merged[q], s)
		}
		qs = merged
	}
	if len(qs) == 0 {
		return nil
	}
	out := make([]string, 0, len(qs))
	for q := range qs {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return qs[out[i]] > qs[out[j]] })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// normaliseRequest folds case and spacing, so the same request said twice
// counts once, and cuts it to maxQueryBytes as Search does.
func normaliseRequest(q string) string {
	return strings.Join(strings.Fields(strings.ToLower(truncate(q, maxQueryBytes))), " ")
}

// NewLearned indexes docs with cfg and what uses taught: each tool's
// earlier requests are indexed in its learned field (FieldLearned),
// deduplicated and capped at Config.LearnCap, the newest kept.
func NewLearned(docs []Doc, cfg Config, uses []Use) *Index {
	return newIndex(docs, cfg, uses)
}

// Learn adds uses to what the index has learned and re-indexes the servers
// of the tools they name. Uses are applied oldest first (by At; in the
// order given when they have none).
func (ix *Index) Learn(uses ...Use) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	touched := ix.learned.add(uses)
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
