// Package proc is what the bench reads of a running program that rusage
// does not give (its whole process tree's memory, how its peak splits
// into file-backed and anonymous pages), and the protocol between the
// bench and its wrapper (bench/internal/wrap), the small parent that runs
// the program and reports its rusage.
package proc

// The wrapper's environment: WrapEnv marks a wrapped run; TreeEnv asks for
// the process tree's memory (the agent and every server it started), which
// no rusage gives: ru_maxrss of children is the largest single process,
// not their sum; SmapsEnv names a file for /proc/PID/smaps at the peak.
const (
	WrapEnv  = "STARTBENCH_WRAP"
	TreeEnv  = "STARTBENCH_TREE"
	SmapsEnv = "STARTBENCH_SMAPS"
)

// Report is what the wrapper writes on fd 3.
type Report struct {
	StartNS int64 `json:"start_ns"`
	WallNS  int64 `json:"wall_ns"`
	CPUNS   int64 `json:"cpu_ns"`
	RSSKB   int64 `json:"rss_kb"`
	Code    int   `json:"code"`
	// Peak is the sampled reading with the largest RSS (SamplePeak).
	Peak Memory `json:"peak"`
	// With TreeEnv: the largest sampled sum of RSS over the process and
	// its descendants, and the most processes seen at once.
	TreeKB    int64 `json:"tree_kb,omitempty"`
	TreeProcs int   `json:"tree_procs,omitempty"`
}
