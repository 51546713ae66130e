// Command wrap runs a program for the bench and reports on fd 3 its wall
// time, CPU, peak RSS (rusage) and how its peak splits into file-backed
// and anonymous pages (bench/internal/proc). It is a binary of its own,
// and a small one, because Linux carries the memory of the process that
// execs into the child's ru_maxrss (exec_mmap keeps the larger of the two
// high-water marks): run from the bench itself, whose RSS is about 26 MB,
// every program under that figure read as 26 MB (`agent --version` did).
//
// Usage: STARTBENCH_WRAP=1 wrap PROGRAM ARGS... 3>report
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/agent-dev/agent/bench/internal/proc"
)

func main() {
	if os.Getenv(proc.WrapEnv) != "1" || len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "wrap: the bench's wrapper: STARTBENCH_WRAP=1 wrap PROGRAM ARGS... 3>report")
		os.Exit(2)
	}
	tree, smaps := os.Getenv(proc.TreeEnv) == "1", os.Getenv(proc.SmapsEnv)
	for _, k := range []string{proc.WrapEnv, proc.TreeEnv, proc.SmapsEnv} {
		os.Unsetenv(k)
	}
	cmd := exec.CommandContext(context.Background(), os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Start()
	var (
		stopTree func() proc.TreePeak
		stopPeak func() proc.Memory
	)
	if err == nil {
		stopPeak = proc.SamplePeak(cmd.Process.Pid, smaps)
		if tree {
			stopTree = proc.SampleTree(cmd.Process.Pid)
		}
		err = cmd.Wait()
	}
	r := proc.Report{StartNS: start.UnixNano(), WallNS: int64(time.Since(start))}
	if stopPeak != nil {
		r.Peak = stopPeak()
	}
	if stopTree != nil {
		p := stopTree()
		r.TreeKB, r.TreeProcs = p.KB, p.Procs
	}
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(111)
	}
	r.CPUNS = int64(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())
	r.RSSKB = maxRSS(cmd.ProcessState)
	r.Code = cmd.ProcessState.ExitCode()
	_ = json.NewEncoder(os.NewFile(3, "report")).Encode(r)
}
