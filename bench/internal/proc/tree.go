package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// TreePeak is the largest sampled sum of RSS over a process tree.
type TreePeak struct {
	KB    int64
	Procs int
}

// TreeInterval is how often the tree is sampled; a peak shorter than it
// can be missed, so the figure is a lower bound of the true peak.
const TreeInterval = 10 * time.Millisecond

// SampleTree samples the RSS of pid and its descendants until the returned
// stop is called, which gives the peak.
func SampleTree(pid int) (stop func() TreePeak) {
	var (
		mu   sync.Mutex
		peak TreePeak
	)
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(TreeInterval)
		defer t.Stop()
		for {
			kb, n := TreeRSS(pid)
			mu.Lock()
			peak.KB, peak.Procs = max(peak.KB, kb), max(peak.Procs, n)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() TreePeak {
		close(done)
		<-ended
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// TreeRSS is the summed resident set (KB) of pid and its descendants, and
// their number, read from /proc.
func TreeRSS(pid int) (int64, int) {
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
