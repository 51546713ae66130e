package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
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
	var peak TreePeak
	end := every(TreeInterval, func() {
		kb, n := TreeRSS(pid)
		peak.KB, peak.Procs = max(peak.KB, kb), max(peak.Procs, n)
	})
	return func() TreePeak {
		end()
		return peak
	}
}

// every calls f now and then every interval, on a goroutine of its own,
// until the returned stop is called; stop returns once the last call has
// returned, so what f wrote may then be read without a lock.
func every(interval time.Duration, f func()) (stop func()) {
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			f()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		<-ended
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
