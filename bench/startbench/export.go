package startbench

import (
	"context"
	"time"

	"github.com/agent-dev/agent/bench/internal/proc"
)

// RunResult is one wrapped run of a program (RunProgram): its wall time, CPU and
// peak RSS from its rusage, and with Tree the sampled peak of its whole
// process tree.
type RunResult struct {
	Wall, CPU time.Duration
	RSSKB     int64
	// FileKB and AnonKB split the sampled peak (proc.SamplePeak).
	FileKB, AnonKB int64
	TreeKB         int64
	TreeProcs      int
	Stdout, Stderr string
}

// RunProgram runs bin with args and env (nothing of the bench's own
// environment) through the bench's wrapper (BuildWrapper), so the rusage is the
// program's own; tree samples the memory of the program and everything
// it starts. It fails when the program exits non-zero.
func RunProgram(ctx context.Context, bin string, args, env []string, tree bool) (RunResult, error) {
	if tree {
		env = append(env[:len(env):len(env)], proc.TreeEnv+"=1")
	}
	s, err := runAgent(ctx, bin, args, env, nil)
	return RunResult{Wall: s.wall, CPU: s.cpu, RSSKB: s.rssKB, FileKB: s.peak.File, AnonKB: s.peak.Anon, TreeKB: s.treeKB, TreeProcs: s.treeProcs,
		Stdout: s.stdout, Stderr: s.stderr}, err
}

// ServeCatalog serves an n-tool catalog made from catalog (ALL.json of
// ../shared/catalogs) as the start bench does: the real catalog's servers
// over streamable HTTP from this process, each tool answering "ok: NAME".
// It returns each server's URL and a function that stops them.
func ServeCatalog(catalog string, n int) (map[string]string, func(), error) {
	base, err := loadBase(catalog)
	if err != nil {
		return nil, nil, err
	}
	srv, err := serveCatalog(generate(base, n))
	if err != nil {
		return nil, nil, err
	}
	return srv.urls, srv.close, nil
}

// IsolatedEnv is a clean HOME and XDG directories under dir, PATH, and extra.
func IsolatedEnv(dir string, extra ...string) []string { return isolatedEnv(dir, extra...) }

// TreeInterval is how often a tree run samples the process tree.
const TreeInterval = proc.TreeInterval
