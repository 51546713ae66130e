// Command searchbench prints the search engine's retrieval quality on the
// shared benchmark sets and its speed on generated large catalogs.
//
//	go run ./tools/search/cmd/searchbench [-shared DIR] [-ablate]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tools/search/internal/bench"
)

func main() {
	shared := flag.String("shared", "", "the shared directory (default: ../shared next to the module root)")
	ablate := flag.Bool("ablate", false, "also show what each ranking signal is worth")
	flag.Parse()
	if err := run(*shared, *ablate); err != nil {
		fmt.Fprintln(os.Stderr, "searchbench:", err)
		os.Exit(1)
	}
}

func run(shared string, ablate bool) error {
	if shared == "" {
		var err error
		if shared, err = bench.SharedDir(); err != nil {
			return err
		}
	}
	set, err := bench.LoadSet(filepath.Join(shared, "retrieval", "livemcpbench"))
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d tools, %d queries\n\n", set.Name, len(set.Docs), len(set.Queries))
	fmt.Printf("%-40s %6s %6s %6s %8s %9s\n", "configuration", "R@1", "R@5", "R@10", "nDCG@10", "srv R@5")
	row := func(name string, cfg search.Config) {
		m := set.Evaluate(bench.IndexRanker(search.NewWithConfig(set.Docs, cfg)))
		fmt.Printf("%-40s %6.1f %6.1f %6.1f %8.1f %9.1f\n", name, m.R1, m.R5, m.R10, m.NDCG10, m.ServerR5)
	}
	for _, v := range bench.Variants(ablate) {
		row(v.Name, v.Config)
	}
	return speed(shared, set)
}

func speed(shared string, set *bench.Set) error {
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
	}
	return nil
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
