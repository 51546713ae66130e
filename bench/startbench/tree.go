package startbench

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// treeEnv, set in a wrapped run's environment, makes the wrapper sample
// the memory of the whole process tree (the agent and every server it
// started), which no rusage gives: ru_maxrss of children is the largest
// single process, not their sum.
const treeEnv = "STARTBENCH_TREE"

// treePeak is the largest sampled sum of RSS over a process tree.
type treePeak struct {
	kb    int64
	procs int
}

// treeInterval is how often the tree is sampled; a peak shorter than it
// can be missed, so the figure is a lower bound of the true peak.
const treeInterval = 10 * time.Millisecond

// sampleTree samples the RSS of pid and its descendants until the returned
// stop is called, which gives the peak.
func sampleTree(pid int) (stop func() treePeak) {
	var (
		mu   sync.Mutex
		peak treePeak
	)
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(treeInterval)
		defer t.Stop()
		for {
			kb, n := treeRSS(pid)
			mu.Lock()
			peak.kb, peak.procs = max(peak.kb, kb), max(peak.procs, n)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() treePeak {
		close(done)
		<-ended
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// treeRSS is the summed resident set (KB) of pid and its descendants, and
// their number, read from /proc.
func treeRSS(pid int) (int64, int) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0
	}
	parent := map[int]int{}
	rss := map[int]int64{}
	page := int64(os.Getpagesize() / 1024)
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name may hold spaces and parentheses: fields start
		// after the last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 22 {
			continue
		}
		pp, _ := strconv.Atoi(string(f[1]))
		pages, _ := strconv.ParseInt(string(f[21]), 10, 64)
		parent[p], rss[p] = pp, pages*page
	}
	var kb int64
	n := 0
	for p := range rss {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				kb += rss[p]
				n++
				break
			}
		}
	}
	return kb, n
}
