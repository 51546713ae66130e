// Package peerbench pairs a real -p turn of agent with the same turn of a
// peer, Claude Code or Codex CLI, run in turn (agent, peer, agent, peer
// ...) so the machine's drift hits both alike: each pair's ratio of wall
// time and of peak RSS, then their medians.
//
// The turn: 282 (or more) deferred MCP tools of ../shared/catalogs served
// over streamable HTTP from this process; a scripted model behind a strict
// fake of the peer's API that searches with the client's own search tool
// (agent: the API's tool search or Responses tool_search; Claude Code:
// its ToolSearch; Codex: client tool_search), calls the echo tool it
// found, then answers. Every run is cold: a new home, config and store
// directory, as the first run in a project is.
package peerbench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agent-dev/agent/bench/startbench"
)

// Options configure a run.
type Options struct {
	// Agent is the agent binary.
	Agent string
	// Claude and Codex are the peers' binaries (empty: that peer is skipped).
	Claude, Codex string
	// Catalog is ALL.json of ../shared/catalogs.
	Catalog string
	// Sizes are catalog sizes, each paired with every peer.
	Sizes []int
	// Runs is the number of pairs per cell, after one unmeasured pair.
	Runs int
	// Dump, when set, keeps each run's request bodies in this directory.
	Dump     string
	Progress io.Writer
}

// Row is one peer at one catalog size.
type Row struct {
	Peer    string `json:"peer"`
	Version string `json:"version"`
	Tools   int    `json:"tools"`
	Pairs   int    `json:"pairs"`
	// Medians of the pairs' ratios, agent / peer.
	WallRatio float64 `json:"wall_ratio"`
	RSSRatio  float64 `json:"peak_rss_ratio"`
	// Medians of each side.
	AgentWallMS float64 `json:"agent_wall_ms"`
	PeerWallMS  float64 `json:"peer_wall_ms"`
	AgentRSSMB  float64 `json:"agent_peak_rss_mb"`
	PeerRSSMB   float64 `json:"peer_peak_rss_mb"`
	// Medians of the whole process tree's sampled peak (the client and
	// every process it started), the ratio of the pairs' trees, and the
	// most processes a peer's tree held at once.
	AgentTreeMB float64 `json:"agent_tree_mb"`
	PeerTreeMB  float64 `json:"peer_tree_mb"`
	TreeRatio   float64 `json:"tree_ratio"`
	PeerProcs   float64 `json:"peer_processes"`
	// Requests of the turn's last pair and their mean body size.
	AgentRequests int     `json:"agent_requests"`
	PeerRequests  int     `json:"peer_requests"`
	AgentKB       float64 `json:"agent_kb_per_request"`
	PeerKB        float64 `json:"peer_kb_per_request"`
}

// Report is the whole run.
type Report struct {
	Command string `json:"command"`
	Load    string `json:"load"`
	Rows    []Row  `json:"rows"`
}

// side is one client of a pair: how to run its turn against a fake.
type side struct {
	name string
	// run runs one cold turn in dir against the catalog at urls, and
	// returns the run and the bodies its fake accepted.
	run func(ctx context.Context, dir string, urls map[string]string) (startbench.RunResult, [][]byte, error)
}

// Run measures every cell.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Runs <= 0 {
		o.Runs = 5
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	rep := &Report{Load: load()}
	for _, n := range o.Sizes {
		urls, stop, err := startbench.ServeCatalog(o.Catalog, n)
		if err != nil {
			return nil, err
		}
		for _, peer := range []string{"claude", "codex"} {
			// One fake serves both sides of a cell: its scripted model
			// answers each request from the request, and the runs take
			// turns.
			var a, p side
			var version string
			var closeFake func()
			switch {
			case peer == "claude" && o.Claude != "":
				fake := newAnthropicFake()
				a, p, closeFake = agentAnthropic(o.Agent, fake), claudeSide(o.Claude, fake), fake.ft.Close
				version = versionOf(ctx, o.Claude)
			case peer == "codex" && o.Codex != "":
				fake, err := newResponsesFake()
				if err != nil {
					stop()
					return nil, err
				}
				a, p, closeFake = agentResponses(o.Agent, fake), codexSide(o.Codex, fake), fake.stop
				version = versionOf(ctx, o.Codex)
			default:
				continue
			}
			row, err := pairs(ctx, o, n, urls, a, p)
			closeFake()
			if err != nil {
				stop()
				return nil, fmt.Errorf("%s at %d tools: %w", peer, n, err)
			}
			row.Version = version
			rep.Rows = append(rep.Rows, row)
		}
		stop()
	}
	rep.Load += " → " + load()
	return rep, nil
}

// pairs runs one unmeasured pair, then o.Runs pairs.
func pairs(ctx context.Context, o Options, n int, urls map[string]string, a, p side) (Row, error) {
	row := Row{Peer: p.name, Tools: n}
	var wr, mr, aw, pw, am, pm, tr, at, pt, pp []float64
	for i := 0; i <= o.Runs; i++ {
		ra, ba, err := cold(ctx, o, fmt.Sprintf("%s-%d-%s-%d", p.name, n, a.name, i), a, urls)
		if err != nil {
			return row, err
		}
		rp, bp, err := cold(ctx, o, fmt.Sprintf("%s-%d-%s-%d", p.name, n, p.name, i), p, urls)
		if err != nil {
			return row, err
		}
		fmt.Fprintf(o.Progress, "%s %d pair %d: agent %s %d MB (file %d, anon %d; tree %d MB, %d processes; %d requests), %s %s %d MB (tree %d MB, %d processes; %d requests)\n",
			p.name, n, i, ra.Wall.Round(time.Millisecond), ra.RSSKB/1024, ra.FileKB/1024, ra.AnonKB/1024, ra.TreeKB/1024, ra.TreeProcs, len(ba),
			p.name, rp.Wall.Round(time.Millisecond), rp.RSSKB/1024, rp.TreeKB/1024, rp.TreeProcs, len(bp))
		row.AgentRequests, row.AgentKB = len(ba), meanKB(ba)
		row.PeerRequests, row.PeerKB = len(bp), meanKB(bp)
		if i == 0 {
			continue // warms the page cache for both binaries
		}
		wr = append(wr, ra.Wall.Seconds()/rp.Wall.Seconds())
		mr = append(mr, float64(ra.RSSKB)/float64(rp.RSSKB))
		aw, pw = append(aw, ms(ra.Wall)), append(pw, ms(rp.Wall))
		am, pm = append(am, float64(ra.RSSKB)/1024), append(pm, float64(rp.RSSKB)/1024)
		tr = append(tr, float64(ra.TreeKB)/float64(max(rp.TreeKB, 1)))
		at, pt = append(at, float64(ra.TreeKB)/1024), append(pt, float64(rp.TreeKB)/1024)
		pp = append(pp, float64(rp.TreeProcs))
	}
	row.TreeRatio, row.AgentTreeMB, row.PeerTreeMB, row.PeerProcs = median(tr), median(at), median(pt), median(pp)
	row.Pairs = len(wr)
	row.WallRatio, row.RSSRatio = median(wr), median(mr)
	row.AgentWallMS, row.PeerWallMS = median(aw), median(pw)
	row.AgentRSSMB, row.PeerRSSMB = median(am), median(pm)
	return row, nil
}

// cold runs s once in a new directory (home, config, store), removed after.
func cold(ctx context.Context, o Options, label string, s side, urls map[string]string) (startbench.RunResult, [][]byte, error) {
	dir, err := os.MkdirTemp("", "peerbench-")
	if err != nil {
		return startbench.RunResult{}, nil, err
	}
	defer os.RemoveAll(dir)
	r, bodies, err := s.run(ctx, dir, urls)
	if o.Dump != "" {
		for i, b := range bodies {
			_ = os.WriteFile(filepath.Join(o.Dump, fmt.Sprintf("%s-req%d.json", label, i)), b, 0o644)
		}
		_ = os.WriteFile(filepath.Join(o.Dump, label+".stdout"), []byte(r.Stdout), 0o644)
		_ = os.WriteFile(filepath.Join(o.Dump, label+".stderr"), []byte(r.Stderr), 0o644)
	}
	return r, bodies, err
}

func meanKB(bodies [][]byte) float64 {
	if len(bodies) == 0 {
		return 0
	}
	t := 0
	for _, b := range bodies {
		t += len(b)
	}
	return float64(t) / float64(len(bodies)) / 1024
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// load is the machine's load average (1, 5, 15 minutes).
func load() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// versionOf is a peer's --version line.
func versionOf(ctx context.Context, bin string) string {
	r, err := startbench.RunProgram(ctx, bin, []string{"--version"}, startbench.IsolatedEnv(os.TempDir()), false)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(r.Stdout)
}

// Markdown writes the report as a table.
func Markdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` (cold: a new home, config and store each run; agent and the peer in turn; load average %s)\n\n", rep.Command, rep.Load)
	b.WriteString("| peer | tools | pairs | wall ratio (median) | peak RSS ratio (median) | tree ratio (median) | agent wall ms | peer wall ms | agent peak RSS MB | peer peak RSS MB | agent tree MB | peer tree MB (processes) | agent requests, KB each | peer requests, KB each |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Rows {
		fmt.Fprintf(&b, "| %s | %d | %d | %.2f | %.2f | %.2f | %.0f | %.0f | %.1f | %.1f | %.1f | %.1f (%.0f) | %d, %.1f | %d, %.1f |\n", r.Version, r.Tools, r.Pairs,
			r.WallRatio, r.RSSRatio, r.TreeRatio, r.AgentWallMS, r.PeerWallMS, r.AgentRSSMB, r.PeerRSSMB, r.AgentTreeMB, r.PeerTreeMB, r.PeerProcs,
			r.AgentRequests, r.AgentKB, r.PeerRequests, r.PeerKB)
	}
	fmt.Fprintf(&b, "\nPeak RSS is each client process's own (rusage); the tree is the client and every process it started, sampled every %s.\n", startbench.TreeInterval)
	_, err := io.WriteString(w, b.String())
	return err
}
