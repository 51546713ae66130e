package proc

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// Memory is one reading of a process's resident memory, in KB, from
// /proc/PID/status: RSS and its file-backed part (the binary's pages and
// the shared libraries it maps) and anonymous part (heap, stacks, the
// binary's written data), and HWM, its own high-water RSS (VmHWM).
type Memory struct {
	RSS  int64 `json:"rss_kb"`
	File int64 `json:"file_kb"`
	Anon int64 `json:"anon_kb"`
	HWM  int64 `json:"hwm_kb"`
}

// ReadMemory reads pid's resident memory.
func ReadMemory(pid int) (Memory, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return Memory{}, false
	}
	var m Memory
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		k, v, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue
		}
		var dst *int64
		switch string(k) {
		case "VmRSS":
			dst = &m.RSS
		case "RssFile":
			dst = &m.File
		case "RssAnon":
			dst = &m.Anon
		case "VmHWM":
			dst = &m.HWM
		default:
			continue
		}
		f := bytes.Fields(v)
		if len(f) > 0 {
			*dst, _ = strconv.ParseInt(string(f[0]), 10, 64)
		}
	}
	return m, m.RSS > 0
}

// MemoryInterval is how often SamplePeak reads the process's memory.
const MemoryInterval = 2 * time.Millisecond

// SamplePeak reads pid's memory every MemoryInterval until the returned
// stop is called, which gives the reading with the largest RSS: how a
// peak splits into file-backed and anonymous pages, which rusage's
// ru_maxrss does not say. A peak between two readings is missed, so the
// reading may fall a little short of ru_maxrss. With smaps set, the
// process's /proc/PID/smaps at that reading (one mapping at a time: the
// binary's text, read-only data and data, the heap arenas, the stacks) is
// written there.
//
// The returned HWM is the last VmHWM read, the process's own peak RSS up
// to its last reading before it exited (a high-water mark, so only growth
// in that last interval is missed). It is not rusage's ru_maxrss: wait4
// gives a child's rusage with its own reaped children's folded in
// (RUSAGE_BOTH), so for an agent that started and reaped a 70 MB Node
// server ru_maxrss is the server's peak, not the agent's.
func SamplePeak(pid int, smaps string) (stop func() Memory) {
	var (
		peak Memory
		hwm  int64
		maps []byte
	)
	end := every(MemoryInterval, func() {
		m, ok := ReadMemory(pid)
		if !ok {
			return
		}
		hwm = max(hwm, m.HWM)
		if m.RSS <= peak.RSS {
			return
		}
		peak = m
		if smaps != "" {
			if s, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps"); err == nil {
				maps = s
			}
		}
	})
	return func() Memory {
		end()
		if smaps != "" && maps != nil {
			_ = os.WriteFile(smaps, maps, 0o600)
		}
		peak.HWM = hwm
		return peak
	}
}
