package startbench

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-dev/agent/bench/internal/faket"
	"github.com/agent-dev/agent/bench/internal/proc"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/tools/mcp"
)

// TreeRow is the whole process tree of a -p turn with the npm servers
// configured, their catalogs cached, that calls one tool.
type TreeRow struct {
	Start   string `json:"start"` // the servers' "start": lazy (the default) or eager
	Servers int    `json:"servers"`
	// Medians over the runs: the largest sampled sum of RSS over the agent
	// and every process it started, the most processes at once (the agent
	// included), the agent process's own peak RSS, and wall time. The
	// agent's peak is its VmHWM as last read before it exited, not its
	// rusage: wait4's ru_maxrss folds in the children it reaped, and a
	// Node server's 60-70 MB read as the agent's.
	TreeMB    float64 `json:"tree_peak_rss_mb"`
	Processes float64 `json:"processes"`
	AgentMB   float64 `json:"agent_peak_rss_mb"`
	WallMS    float64 `json:"wall_ms"`
	Runs      int     `json:"runs"`
}

// npmTreeTarget is the tool the turn calls: the everything server's echo.
var npmTreeTarget = mcp.ToolName("everything", "echo")

// measureNPMTree runs, with the npm servers' catalogs cached, a deferred
// -p turn that searches and calls one tool, sampling the process tree: once
// with every server lazy (the default) and once eager.
func measureNPMTree(ctx context.Context, o Options) ([]TreeRow, error) {
	dir, err := os.MkdirTemp("", "startbench-tree-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	servers, _ := npmServers(o.NodeBin, dir)
	if len(servers) == 0 {
		return nil, nil
	}
	ft := &faket.T{}
	defer ft.Close()
	f := anthropictest.NewServer(ft)
	env := isolatedEnv(dir, "ANTHROPIC_API_KEY="+anthropictest.DefaultAPIKey)
	db := filepath.Join(dir, "tree.db")
	run := func(cfg, prompt string, tree bool) (sample, error) {
		args := []string{"-p", prompt, "--provider", "anthropic", "--base-url", f.URL, "--mcp-config", cfg, "--db", db,
			"--defer", "--output-format", "json"}
		e := env
		if tree {
			e = append(env[:len(env):len(env)], proc.TreeEnv+"=1")
		}
		return runAgent(ctx, o.Agent, args, e, nil)
	}
	var rows []TreeRow
	for _, start := range []string{"lazy", "eager"} {
		conf := map[string]any{}
		for name, s := range servers {
			s := maps.Clone(s.(map[string]any))
			s["start"] = start
			conf[name] = s
		}
		cfg, err := writeMCPConfig(filepath.Join(dir), conf)
		if err != nil {
			return nil, err
		}
		if start == "lazy" {
			// Fill the catalog cache: every server starts and is listed.
			f.Script = anthropictest.NewScript(anthropictest.Turn{Text: "hello"})
			if _, err := run(cfg, "hi", false); err != nil {
				return nil, err
			}
		}
		var samples []sample
		for i := 0; i < o.Runs; i++ {
			f.Script = anthropictest.NewScript(
				anthropictest.Turn{Search: "echo", Call: npmTreeTarget, Input: map[string]any{"message": "hello"}},
				anthropictest.Turn{Text: "hello"})
			s, err := run(cfg, "Echo hello with the echo tool.", true)
			if err != nil {
				return nil, err
			}
			var res struct {
				IsError   bool `json:"is_error"`
				ToolCalls []struct {
					Name    string `json:"name"`
					IsError bool   `json:"is_error"`
				} `json:"tool_calls"`
			}
			if err := json.Unmarshal([]byte(s.stdout), &res); err != nil || res.IsError || len(res.ToolCalls) != 1 ||
				res.ToolCalls[0].Name != npmTreeTarget || res.ToolCalls[0].IsError {
				return nil, fmt.Errorf("%s: the turn did not call %s once: %s", start, npmTreeTarget, cut(s.stdout))
			}
			fmt.Fprintf(o.Progress, "npm tree %s run %d: tree %d MB in %d processes, agent %d MB (ru_maxrss with reaped children %d MB), wall %s\n", start, i,
				s.treeKB/1024, s.treeProcs, s.ownKB/1024, s.rssKB/1024, s.wall.Round(time.Millisecond))
			samples = append(samples, s)
		}
		rows = append(rows, TreeRow{Start: start, Servers: len(servers), Runs: len(samples),
			TreeMB:    median(samples, func(s sample) float64 { return float64(s.treeKB) / 1024 }),
			Processes: median(samples, func(s sample) float64 { return float64(s.treeProcs) }),
			AgentMB:   median(samples, func(s sample) float64 { return float64(s.ownKB) / 1024 }),
			WallMS:    median(samples, func(s sample) float64 { return ms(s.wall) })})
	}
	return rows, nil
}

// treeMarkdown is the process-tree table.
func treeMarkdown(b *strings.Builder, rows []TreeRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\nOne -p turn calling %s, the npm servers' catalogs cached; the whole process tree sampled every %s; agent peak RSS is the agent process's own (its VmHWM, read every %s until it exits; its rusage would count the servers it reaped) (medians):\n\n", npmTreeTarget, proc.TreeInterval, proc.MemoryInterval)
	b.WriteString("| servers | start | processes (agent included) | tree peak RSS MB | agent peak RSS MB | wall ms | runs |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %d | %s | %.0f | %.1f | %.1f | %.0f | %d |\n", r.Servers, r.Start, r.Processes, r.TreeMB, r.AgentMB, r.WallMS, r.Runs)
	}
}
