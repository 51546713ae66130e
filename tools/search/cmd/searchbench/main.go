// Command searchbench prints the search engine's retrieval quality on the
// shared benchmark sets and its speed on generated large catalogs.
//
//	go run ./tools/search/cmd/searchbench [-shared DIR] [-ablate]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tools/search/internal/bench"
)

func main() {
	shared := flag.String("shared", "", "the shared directory (default: ../shared next to the module root)")
	ablate := flag.Bool("ablate", false, "also show what each ranking signal is worth")
	learn := flag.Bool("learn", false, "show what learning from use is worth: each set after history or after its other half")
	explore := flag.Bool("explore", false, "show the exploration variants (bench.Explore) instead of the ablation")
	noSpeed := flag.Bool("nospeed", false, "skip the speed table")
	tune := flag.Bool("tune", false, "tune the settings on half the queries and report both halves")
	dump := flag.String("dump", "", "print each query's first 50 tools under the named variant (see -ablate) as JSONL and exit")
	only := flag.String("only", "", "measure only the named sets (comma-separated)")
	misses := flag.String("misses", "", "print the queries of the named set (see the table's columns) where the default ranks a gold tool lower than plain BM25 over every field, and exit")
	flag.Parse()
	if *misses != "" {
		if err := runMisses(*shared, *misses); err != nil {
			fmt.Fprintln(os.Stderr, "searchbench:", err)
			os.Exit(1)
		}
		return
	}
	if *dump != "" {
		if err := runDump(*shared, *dump); err != nil {
			fmt.Fprintln(os.Stderr, "searchbench:", err)
			os.Exit(1)
		}
		return
	}
	if *learn {
		if err := runLearn(*shared); err != nil {
			fmt.Fprintln(os.Stderr, "searchbench:", err)
			os.Exit(1)
		}
		return
	}
	if *tune {
		if err := runTune(*shared); err != nil {
			fmt.Fprintln(os.Stderr, "searchbench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*shared, *only, *ablate, *explore, !*noSpeed); err != nil {
		fmt.Fprintln(os.Stderr, "searchbench:", err)
		os.Exit(1)
	}
}

func run(shared, only string, ablate, explore, speedToo bool) error {
	shared, sets, err := loadSets(shared)
	if err != nil {
		return err
	}
	held, err := bench.HeldOut(shared, sets)
	if err != nil {
		return err
	}
	if only != "" {
		keep := func(s *bench.Set) bool { return !slices.Contains(strings.Split(only, ","), s.Name) }
		sets, held = slices.DeleteFunc(sets, keep), slices.DeleteFunc(held, keep)
	}
	all := append(append([]*bench.Set(nil), sets...), held...)
	for _, s := range all {
		fmt.Printf("%s: %d tools, %d queries\n", s.Name, len(s.Docs), len(s.Queries))
	}
	fmt.Printf("\nnDCG@10 on each set, all queries (even half / odd half); held-out checks (*) choose nothing\n\n")
	fmt.Printf("%-44s", "configuration")
	for _, s := range all {
		name := s.Name
		for _, h := range held {
			if h == s {
				name += "*"
			}
		}
		fmt.Printf(" %22s", name)
	}
	var lmb *bench.Set
	for _, s := range sets {
		if s.Name == "livemcpbench" {
			lmb = s
		}
	}
	fmt.Printf(" %8s %8s\n", "min Δ", "mean")
	variants := bench.Variants(ablate)
	if explore {
		variants = append(slices.Clip(variants[:len(variants)-1]), bench.Explore()...) // the references, then the variants
	}
	// best[set][half] is the best plain BM25 reference: "min Δ" is a
	// variant's smallest gain over it on any half of the chosen sets.
	best := map[string]float64{}
	for _, v := range variants {
		fmt.Printf("%-44s", v.Name)
		minGain, mean := math.Inf(1), 0.0
		for _, s := range all {
			ix := search.NewWithConfig(s.Docs, v.Config)
			even, odd := s.Split()
			m, me, mo := s.Evaluate(bench.IndexRanker(ix)), even.Evaluate(bench.IndexRanker(ix)), odd.Evaluate(bench.IndexRanker(ix))
			fmt.Printf(" %22s", fmt.Sprintf("%.1f (%.1f/%.1f)", m.NDCG10, me.NDCG10, mo.NDCG10))
			if !slices.Contains(sets, s) {
				continue
			}
			mean += m.NDCG10 / float64(len(sets))
			for half, x := range map[string]float64{"even": me.NDCG10, "odd": mo.NDCG10} {
				k := s.Name + "/" + half
				if strings.HasSuffix(v.Name, "(reference)") {
					best[k] = max(best[k], x)
				} else {
					minGain = min(minGain, x-best[k])
				}
			}
		}
		if math.IsInf(minGain, 1) {
			fmt.Printf(" %8s %8.1f\n", "", mean)
		} else {
			fmt.Printf(" %+8.1f %8.1f\n", minGain, mean)
		}
	}
	if lmb != nil && !explore {
		fmt.Printf("\n%s in detail\n\n", lmb.Name)
		even, odd := lmb.Split()
		fmt.Printf("%-44s %6s %6s %6s %8s %9s %9s %11s %11s\n", "configuration", "R@1", "R@5", "R@10", "nDCG@10", "srv hit@5", "srv R@5", "nDCG even", "nDCG odd")
		for _, v := range variants {
			ix := search.NewWithConfig(lmb.Docs, v.Config)
			m := lmb.Evaluate(bench.IndexRanker(ix))
			me, mo := even.Evaluate(bench.IndexRanker(ix)), odd.Evaluate(bench.IndexRanker(ix))
			fmt.Printf("%-44s %6.1f %6.1f %6.1f %8.1f %9.1f %9.1f %11.1f %11.1f\n", v.Name, m.R1, m.R5, m.R10, m.NDCG10, m.ServerR5, m.ServerShareR5, me.NDCG10, mo.NDCG10)
		}
	}
	if !speedToo {
		return nil
	}
	if lmb == nil {
		return fmt.Errorf("the speed table needs livemcpbench's queries")
	}
	return speed(shared, lmb, bench.RequestPool(shared, sets))
}

// loadSets reads the shared sets from shared, or from ../shared next to
// the module root when shared is empty, and returns the directory used.
func loadSets(shared string) (string, []*bench.Set, error) {
	if shared == "" {
		var err error
		if shared, err = bench.SharedDir(); err != nil {
			return "", nil, err
		}
	}
	sets, err := bench.Sets(shared)
	return shared, sets, err
}

func speed(shared string, set *bench.Set, pool []string) error {
	real, err := bench.RealDocs(shared)
	if err != nil {
		return err
	}
	fmt.Printf("\nspeed (build and replace: best of 3, wall / CPU; CPU adds up both cores)\n")
	fmt.Printf("%-7s %19s %17s %9s %9s %9s %9s\n", "tools", "build", "replace 1 server", "p50", "p99", "max", "index MB")
	for _, n := range []int{1000, 10000, 50000} {
		docs := bench.Synthetic(real, n, 1)
		build, buildCPU := best(3, func() { search.New(docs) })
		ix, mem := bench.Footprint(docs)
		srv := docs[len(docs)/2].Server
		var own []search.Doc
		for _, d := range docs {
			if d.Server == srv {
				own = append(own, d)
			}
		}
		replace, replaceCPU := best(3, func() { ix.ReplaceServer(srv, own) })
		lat := bench.MeasureLatency(ix, bench.Queries(set, docs))
		fmt.Printf("%-7d %9s / %7s %7s / %7s %9s %9s %9s %9.1f\n", n, ms(build), ms(buildCPU), ms(replace), ms(replaceCPU),
			lat.P50.Round(time.Microsecond), lat.P99.Round(time.Microsecond), lat.Max.Round(time.Microsecond), float64(mem)/(1<<20))
		if n != 10000 || len(pool) == 0 {
			continue
		}
		// The same catalog with 100,000 learned (request, tool) pairs, read
		// analysed as a start reads them from the store; and as text, as
		// the first start after the analysis changed reads them.
		text := bench.SyntheticUses(docs, pool, 100000, 1)
		uses, stored := bench.Analysed(text, search.DefaultConfig().Stemmer)
		textBuild, textCPU := best(3, func() { search.NewLearned(docs, search.DefaultConfig(), text) })
		build, buildCPU = best(3, func() { search.NewLearnedAnalysed(docs, search.DefaultConfig(), uses, stored) })
		ix, mem = bench.FootprintLearned(docs, uses, stored)
		replace, replaceCPU = best(3, func() { ix.ReplaceServer(srv, own) })
		learn, learnCPU := best(3, func() { ix.Learn(search.Use{Query: "a request like another", Tool: own[0].Key()}) })
		lat = bench.MeasureLatency(ix, bench.Queries(set, docs))
		fmt.Printf("%-7s %9s / %7s %7s / %7s %9s %9s %9s %9.1f   (learn one pair: %s / %s)\n", "10000+L", ms(build), ms(buildCPU), ms(replace), ms(replaceCPU),
			lat.P50.Round(time.Microsecond), lat.P99.Round(time.Microsecond), lat.Max.Round(time.Microsecond), float64(mem)/(1<<20), ms(learn), ms(learnCPU))
		fmt.Printf("%-7s %9s / %7s\n", "10000+T", ms(textBuild), ms(textCPU))
	}
	fmt.Println("10000+L: the 10,000 tools with 100,000 learned (request, tool) pairs, read analysed as the store keeps them")
	fmt.Println("10000+T: the same build from the requests' text (the first start after the analysis changed; --history)")
	return nil
}

// runDump writes {id, results} per query, the format `agent tools search
// --queries` writes, for looking at single queries under one variant.
func runDump(shared, variant string) error {
	_, set, err := loadBenchmark(shared)
	if err != nil {
		return err
	}
	for _, v := range bench.Variants(true) {
		if v.Name != variant {
			continue
		}
		rank := bench.IndexRanker(search.NewWithConfig(set.Docs, v.Config))
		enc := json.NewEncoder(os.Stdout)
		for _, q := range set.Queries {
			if err := enc.Encode(map[string]any{"id": q.ID, "results": rank(q.Query, 50)}); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("no variant named %q: see -ablate for the names", variant)
}

// loadBenchmark reads livemcpbench from shared, or from ../shared next to
// the module root when shared is empty, and returns the directory used.
func loadBenchmark(shared string) (string, *bench.Set, error) {
	if shared == "" {
		var err error
		if shared, err = bench.SharedDir(); err != nil {
			return "", nil, err
		}
	}
	set, err := bench.LoadSet(filepath.Join(shared, "retrieval", "livemcpbench"))
	return shared, set, err
}

// best runs f n times and returns the shortest wall time and its CPU time.
func best(n int, f func()) (wall, cpu time.Duration) {
	for range n {
		runtime.GC()
		c, t := bench.CPUTime(), time.Now()
		f()
		if d := time.Since(t); wall == 0 || d < wall {
			wall, cpu = d, bench.CPUTime()-c
		}
	}
	return wall, cpu
}

func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }

// runTune tunes on the even queries from the defaults, then on the odd ones,
// and prints each tuned setting on the half it was not tuned on: a setting
// that only fits its half shows up as a gain there and none on the other.
func runTune(shared string) error {
	_, set, err := loadBenchmark(shared)
	if err != nil {
		return err
	}
	even, odd := set.Split()
	def := search.DefaultConfig()
	show := func(name string, cfg search.Config) {
		fmt.Printf("%-24s", name)
		for _, s := range []*bench.Set{even, odd, set} {
			m := s.Evaluate(bench.IndexRanker(search.NewWithConfig(s.Docs, cfg)))
			fmt.Printf("  %s nDCG@10 %5.1f R@5 %5.1f", s.Name, m.NDCG10, m.R5)
		}
		fmt.Println()
	}
	show("default", def)
	for _, half := range []*bench.Set{even, odd, set} {
		cfg := bench.Tune(half, def, bench.Knobs(), 0.3, os.Stdout)
		fmt.Printf("  tuned: %+v\n", cfg)
		show("tuned on "+half.Name, cfg)
	}
	return nil
}

// runLearn prints nDCG@10 of each learning case under the learning
// variants, next to the same set learning nothing.
func runLearn(shared string) error {
	shared, sets, err := loadSets(shared)
	if err != nil {
		return err
	}
	cases, err := bench.LearnCases(shared, sets)
	if err != nil {
		return err
	}
	fmt.Printf("nDCG@10 after learning from earlier requests (all queries of the case; even/odd halves of them)\n\n")
	fmt.Printf("%-40s", "configuration")
	for _, c := range cases {
		fmt.Printf(" %28s", c.Name)
	}
	fmt.Println()
	for _, v := range bench.LearnVariants() {
		fmt.Printf("%-40s", v.Name)
		for _, c := range cases {
			uses := c.Uses
			if v.NoUses {
				uses = nil
			}
			ix := search.NewLearned(c.Set.Docs, v.Config, uses)
			even, odd := c.Set.Split()
			m, me, mo := c.Set.Evaluate(bench.IndexRanker(ix)), even.Evaluate(bench.IndexRanker(ix)), odd.Evaluate(bench.IndexRanker(ix))
			fmt.Printf(" %28s", fmt.Sprintf("%.1f (%.1f/%.1f)", m.NDCG10, me.NDCG10, mo.NDCG10))
		}
		fmt.Println()
	}
	return nil
}

// runMisses prints, for each query of the named set, the rank of its first
// gold tool under the default and under plain BM25 over every field
// (porter), with the default's first three, where the default is lower:
// what the engine loses that plain BM25 finds. The rank is 0 past 50.
func runMisses(shared, name string) error {
	shared, sets, err := loadSets(shared)
	if err != nil {
		return err
	}
	held, err := bench.HeldOut(shared, sets)
	if err != nil {
		return err
	}
	for _, s := range append(sets, held...) {
		if s.Name != name {
			continue
		}
		vs := bench.Variants(false)
		ref, def := vs[len(vs)-2], vs[len(vs)-1]
		a, b := bench.IndexRanker(search.NewWithConfig(s.Docs, def.Config)), bench.IndexRanker(search.NewWithConfig(s.Docs, ref.Config))
		worse, better := 0, 0
		for _, q := range s.Queries {
			ga, gb := a(q.Query, 50), b(q.Query, 50)
			ra, rb := firstGold(ga, q.Groups), firstGold(gb, q.Groups)
			switch {
			case ra > 0 && (rb == 0 || ra <= rb) && ra != rb:
				better++
			case ra != rb:
				worse++
				fmt.Printf("%-4d %-4d %q gold %v top %v\n", ra, rb, q.Query, q.Groups, ga[:min(3, len(ga))])
			}
		}
		fmt.Printf("%s: the default ranks the first gold tool higher on %d queries, lower on %d (columns: rank under default, under %s)\n", name, better, worse, ref.Name)
		return nil
	}
	return fmt.Errorf("no set named %q", name)
}

// firstGold is the 1-based position of the first tool of any gold group
// in got, or 0.
func firstGold(got []string, groups [][]string) int {
	for i, id := range got {
		for _, g := range groups {
			if slices.Contains(g, id) {
				return i + 1
			}
		}
	}
	return 0
}
