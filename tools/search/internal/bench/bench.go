// Package bench measures the search engine: retrieval quality on the shared
// tool-retrieval sets and speed on large generated catalogs. It is used by
// the package's Go benchmarks and by cmd/searchbench, which prints a table.
package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/tools/search"
)

// SharedDir finds ../shared next to the module root, walking up from the
// working directory to go.mod. It errors when there is none, so callers can
// skip.
func SharedDir() (string, error) {
	root, err := ModuleDir()
	if err != nil {
		return "", fmt.Errorf("find shared dir: %w", err)
	}
	shared := filepath.Join(filepath.Dir(root), "shared")
	if st, err := os.Stat(shared); err == nil && st.IsDir() {
		return shared, nil
	}
	return "", fmt.Errorf("no shared dir at %s", shared)
}

// ModuleDir is the module root: the first directory above the working
// directory with a go.mod.
func ModuleDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Query is one benchmark task with its gold tools. A group counts as found
// when any of its members is retrieved.
type Query struct {
	ID     string     `json:"id"`
	Query  string     `json:"query"`
	Gold   []string   `json:"gold"`
	Groups [][]string `json:"gold_groups"`
}

// Set is a retrieval benchmark: a catalog and its queries.
type Set struct {
	Name    string
	Docs    []search.Doc
	Queries []Query
	// server of each doc key, for server-level recall
	serverOf map[string]string
}

// LoadSet reads a set laid out as dir/tools.jsonl and dir/queries.jsonl.
func LoadSet(dir string) (*Set, error) {
	return LoadSetFiles(filepath.Base(dir), filepath.Join(dir, "tools.jsonl"), filepath.Join(dir, "queries.jsonl"))
}

// LoadSetFiles reads a set from a catalog file and a queries file.
func LoadSetFiles(name, catalog, queries string) (*Set, error) {
	docs, err := search.LoadCatalogFile(catalog)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(queries)
	if err != nil {
		return nil, fmt.Errorf("open queries: %w", err)
	}
	defer f.Close()
	set := &Set{Name: name, Docs: docs, serverOf: map[string]string{}}
	for _, d := range docs {
		set.serverOf[d.Key()] = d.Server
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q Query
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("parse query: %w", err)
		}
		if len(q.Groups) == 0 {
			for _, g := range q.Gold {
				q.Groups = append(q.Groups, []string{g})
			}
		}
		set.Queries = append(set.Queries, q)
	}
	return set, sc.Err()
}

// Metrics are averages over queries, in percent.
type Metrics struct {
	R1, R5, R10, NDCG10 float64
	// ServerR5 ranks servers by their best tool: a query counts a hit when
	// a right server is among the first five servers of the ranking.
	ServerR5 float64
	// ServerShareR5 is recall at server level: the share of a query's
	// gold groups with a server among the first five servers (a group
	// whose tool is on two servers is found by either).
	ServerShareR5 float64
	Queries       int
}

// Ranker returns the keys of the best tools for a query, best first.
type Ranker func(query string, k int) []string

// IndexRanker ranks with ix in BM25 mode.
func IndexRanker(ix *search.Index) Ranker {
	return func(q string, k int) []string {
		hits, err := ix.Search(q, search.Options{Limit: k, Mode: search.ModeBM25})
		if err != nil {
			return nil
		}
		out := make([]string, len(hits))
		for i, h := range hits {
			out[i] = h.ID
			if out[i] == "" {
				out[i] = h.Name
			}
		}
		return out
	}
}

// Evaluate scores a ranker on the set.
func (s *Set) Evaluate(rank Ranker) Metrics {
	var m Metrics
	for _, q := range s.Queries {
		got := rank(q.Query, 50)
		m.R1 += groupRecall(got, q.Groups, 1)
		m.R5 += groupRecall(got, q.Groups, 5)
		m.R10 += groupRecall(got, q.Groups, 10)
		m.NDCG10 += ndcg(got, q.Groups, 10)
		found, of := s.serverRecall(got, q.Groups, 5)
		if found > 0 {
			m.ServerR5++
		}
		if of > 0 {
			m.ServerShareR5 += float64(found) / float64(of)
		}
	}
	n := float64(len(s.Queries))
	m.Queries = len(s.Queries)
	if n > 0 {
		m.R1, m.R5, m.R10, m.NDCG10, m.ServerR5 = 100*m.R1/n, 100*m.R5/n, 100*m.R10/n, 100*m.NDCG10/n, 100*m.ServerR5/n
		m.ServerShareR5 = 100 * m.ServerShareR5 / n
	}
	return m
}

// serverRecall ranks servers by their best tool in got and counts the
// groups' server sets (alike sets once: of) with a server among the first k
// (found). A group whose tool is on two servers is found by either.
func (s *Set) serverRecall(got []string, groups [][]string, k int) (found, of int) {
	first := map[string]bool{}
	for _, id := range got {
		if len(first) == k {
			break
		}
		first[s.serverOf[id]] = true
	}
	sets := map[string]bool{}
	for _, g := range groups {
		var srvs []string
		hit := false
		for _, id := range g {
			srv := s.serverOf[id]
			if !slices.Contains(srvs, srv) {
				srvs = append(srvs, srv)
			}
			hit = hit || first[srv]
		}
		slices.Sort(srvs)
		key := strings.Join(srvs, "\x00")
		if sets[key] {
			continue
		}
		sets[key] = true
		if hit {
			found++
		}
	}
	return found, len(sets)
}

func groupRecall(got []string, groups [][]string, k int) float64 {
	if len(groups) == 0 {
		return 0
	}
	top := map[string]bool{}
	for i := 0; i < len(got) && i < k; i++ {
		top[got[i]] = true
	}
	found := 0
	for _, g := range groups {
		for _, id := range g {
			if top[id] {
				found++
				break
			}
		}
	}
	return float64(found) / float64(len(groups))
}

// ndcg is binary-gain nDCG: a retrieved tool gains when it is the first
// retrieved member of a gold group; the ideal ranking finds one group per
// position.
func ndcg(got []string, groups [][]string, k int) float64 {
	groupOf := map[string][]int{}
	for gi, g := range groups {
		for _, id := range g {
			groupOf[id] = append(groupOf[id], gi)
		}
	}
	credited := map[int]bool{}
	dcg := 0.0
	for i := 0; i < len(got) && i < k; i++ {
		for _, gi := range groupOf[got[i]] {
			if !credited[gi] {
				credited[gi] = true
				dcg += 1 / math.Log2(float64(i+2))
				break
			}
		}
	}
	idcg := 0.0
	for i := 0; i < len(groups) && i < k; i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// Split divides the set's queries in two halves by position (even, odd), on
// the same catalog: tune on one, report on the other, to see whether a
// setting generalises beyond the queries it was chosen on.
func (s *Set) Split() (even, odd *Set) {
	even, odd = &Set{Name: s.Name + "/even", Docs: s.Docs, serverOf: s.serverOf}, &Set{Name: s.Name + "/odd", Docs: s.Docs, serverOf: s.serverOf}
	for i, q := range s.Queries {
		if i%2 == 0 {
			even.Queries = append(even.Queries, q)
		} else {
			odd.Queries = append(odd.Queries, q)
		}
	}
	return even, odd
}

// Sets loads the benchmark sets the ranking is chosen on: the shared
// livemcpbench, metatool (single-tool queries) and metatool-multi, and the
// two kept in testdata: requests (people's requests over the shared MCP
// catalogs, in six styles, written before the engine ran on them) and bfcl
// (public API functions whose requests carry parameter values, from the
// Berkeley Function Calling Leaderboard). A set that is not there is left
// out; none at all is an error.
func Sets(shared string) ([]*Set, error) {
	var out []*Set
	lmb := filepath.Join(shared, "retrieval", "livemcpbench")
	mt := filepath.Join(shared, "retrieval", "metatool")
	td := filepath.Join("testdata")
	if root, err := ModuleDir(); err == nil {
		td = filepath.Join(root, "tools", "search", "testdata")
	}
	for _, s := range []struct{ name, catalog, queries string }{
		{"livemcpbench", filepath.Join(lmb, "tools.jsonl"), filepath.Join(lmb, "queries.jsonl")},
		{"metatool", filepath.Join(mt, "tools.jsonl"), filepath.Join(mt, "queries.jsonl")},
		{"metatool-multi", filepath.Join(mt, "tools.jsonl"), filepath.Join(mt, "queries_multi.jsonl")},
		{"requests", filepath.Join(shared, "catalogs", "ALL.json"), filepath.Join(td, "requests", "queries.jsonl")},
		{"bfcl", filepath.Join(td, "bfcl", "tools.jsonl"), filepath.Join(td, "bfcl", "queries.jsonl")},
	} {
		set, err := LoadSetFiles(s.name, s.catalog, s.queries)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		out = append(out, set)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no retrieval sets under %s", filepath.Join(shared, "retrieval"))
	}
	return out, nil
}

// HeldOut builds checks that no setting is chosen on, to catch overfitting
// to the sets Sets loads:
//
//   - metatool-history: every 10th pair of metatool's history.jsonl as a
//     single-tool query (other people's wording of the same needs);
//   - merged:livemcpbench: livemcpbench's and metatool's catalogs as one
//     (MCP tools with schemas and Chinese text, and plugins described in a
//     sentence), with livemcpbench's queries: the plugins are distractors.
func HeldOut(shared string, sets []*Set) ([]*Set, error) {
	var out []*Set
	mt := filepath.Join(shared, "retrieval", "metatool")
	if uses, err := LoadHistory(filepath.Join(mt, "history.jsonl")); err == nil {
		var base *Set
		for _, s := range sets {
			if s.Name == "metatool" {
				base = s
			}
		}
		if base != nil {
			h := &Set{Name: "metatool-history", Docs: base.Docs, serverOf: base.serverOf}
			for i := 0; i < len(uses); i += 10 {
				h.Queries = append(h.Queries, Query{ID: fmt.Sprint(i), Query: uses[i].Query, Groups: [][]string{{uses[i].Tool}}})
			}
			out = append(out, h)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var docs []search.Doc
	serverOf := map[string]string{}
	var parts []*Set
	for _, s := range sets {
		if s.Name != "livemcpbench" && s.Name != "metatool" {
			continue
		}
		for _, d := range s.Docs {
			if _, dup := serverOf[d.Key()]; !dup {
				serverOf[d.Key()] = d.Server
				docs = append(docs, d)
			}
		}
		// MetaTool's queries are left out: livemcpbench has tools that
		// answer many of them (get_weather, get_route_directions) that
		// their gold does not list.
		if s.Name == "livemcpbench" {
			parts = append(parts, &Set{Name: "merged:" + s.Name, Queries: s.Queries})
		}
	}
	if len(parts) == 1 {
		for _, p := range parts {
			p.Docs, p.serverOf = docs, serverOf
			out = append(out, p)
		}
	}
	return out, nil
}

// Use is one earlier (query, tool) pair of a history file.
type Use struct {
	Query string `json:"query"`
	Tool  string `json:"tool"`
}

// LoadHistory reads JSONL {"query", "tool"} lines.
func LoadHistory(path string) ([]Use, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Use
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var u Use
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil {
			return nil, fmt.Errorf("parse history: %w", err)
		}
		out = append(out, u)
	}
	return out, sc.Err()
}

// LearnCase is a set to evaluate with what an index learned first.
type LearnCase struct {
	Name string
	Set  *Set
	Uses []search.Use
}

// LearnCases builds the learning-from-use evaluations:
//
//   - metatool and metatool-multi after metatool's history.jsonl (18,614
//     earlier requests of other people, disjoint from the queries);
//   - each half of every set after the other half's requests, each with
//     its gold tools (a group's first member), as if the user had made
//     them before: on livemcpbench this is the only history there is.
func LearnCases(shared string, sets []*Set) ([]LearnCase, error) {
	var out []LearnCase
	hist, err := LoadHistory(filepath.Join(shared, "retrieval", "metatool", "history.jsonl"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	uses := make([]search.Use, len(hist))
	for i, u := range hist {
		uses[i] = search.Use{Query: u.Query, Tool: u.Tool}
	}
	for _, s := range sets {
		if strings.HasPrefix(s.Name, "metatool") && len(uses) > 0 {
			out = append(out, LearnCase{s.Name + " after history.jsonl", s, uses})
		}
	}
	for _, s := range sets {
		even, odd := s.Split()
		out = append(out,
			LearnCase{s.Name + "/odd after /even", odd, GoldUses(even)},
			LearnCase{s.Name + "/even after /odd", even, GoldUses(odd)})
	}
	return out, nil
}

// GoldUses turns a set's queries into uses: each query with each gold
// group's first tool.
func GoldUses(s *Set) []search.Use {
	var out []search.Use
	for _, q := range s.Queries {
		for _, g := range q.Groups {
			if len(g) > 0 {
				out = append(out, search.Use{Query: q.Query, Tool: g[0]})
			}
		}
	}
	return out
}
