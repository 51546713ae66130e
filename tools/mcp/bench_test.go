//go:build unix

package mcp

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/config"
)

// benchServers are the npm servers of ../shared/catalogs/SERVERS.md that
// .ci/install-mcp.sh --bench installs, started as SERVERS.md says. Those
// not installed are left out (and named in the output).
func benchServers(b *testing.B) (servers []config.MCPServer, missing []string) {
	_, file, _, _ := runtime.Caller(0)
	prefix := os.Getenv("AGENT_MCP_NODE_PREFIX")
	if prefix == "" {
		prefix = filepath.Join(filepath.Dir(file), "..", "..", ".ci", "node_modules", "mcp")
	}
	dir := b.TempDir()
	home := b.TempDir()
	specs := []struct {
		name, bin string
		args      []string
		env       map[string]string
	}{
		{"everything", "mcp-server-everything", []string{"stdio"}, nil},
		{"filesystem", "mcp-server-filesystem", []string{dir}, nil},
		{"memory", "mcp-server-memory", nil, map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
		{"sequential-thinking", "mcp-server-sequential-thinking", nil, nil},
		{"server-github", "mcp-server-github", nil, map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "dummy"}},
		{"puppeteer", "mcp-server-puppeteer", nil, nil},
		{"playwright", "playwright-mcp", []string{"--headless", "--isolated"}, nil},
		{"notion", "notion-mcp-server", nil, map[string]string{"NOTION_TOKEN": "dummy"}},
		// desktop-commander writes its config under HOME.
		{"desktop-commander", "desktop-commander", nil, map[string]string{"HOME": home}},
		{"chrome-devtools", "chrome-devtools-mcp", nil, nil},
	}
	for _, s := range specs {
		p := filepath.Join(prefix, "node_modules", ".bin", s.bin)
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, s.name)
			continue
		}
		servers = append(servers, config.MCPServer{Name: s.name, Type: config.MCPStdio, Command: p, Args: s.args, Env: s.env, Timeout: 90 * time.Second})
	}
	return servers, missing
}

// startTime starts servers together and returns the time until every tool
// of every server is listed, the tool count, and the CPU time the servers
// used (user+sys, counted once they exited).
func startTime(b *testing.B, servers ...config.MCPServer) (time.Duration, int, time.Duration) {
	cpu0 := childCPU()
	m := NewManager(servers, Options{Logger: slog.New(slog.DiscardHandler)})
	start := time.Now()
	errs := m.Start(b.Context())
	d := time.Since(start)
	n := len(m.Tools(false))
	_ = m.Close()
	if len(errs) > 0 {
		b.Fatalf("start: %v", errs)
	}
	return d, n, childCPU() - cpu0
}

// childCPU is the CPU time of the waited-for child processes so far.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStartTogetherVsAlone compares starting the npm servers of
// SERVERS.md together against each alone: concurrent start should cost
// about the slowest server, not the sum. Run with
//
//	go test ./tools/mcp -run '^$' -bench StartTogetherVsAlone -benchtime 3x
//
// It prints a table (medians over the iterations).
func BenchmarkStartTogetherVsAlone(b *testing.B) {
	servers, missing := benchServers(b)
	if len(servers) < 2 {
		b.Skip("the npm MCP servers are not installed: run .ci/install-mcp.sh --bench")
	}
	// Warm the disk cache so the first measured start is not an outlier.
	startTime(b, servers...)
	alone := map[string][]time.Duration{}
	cpu := map[string][]time.Duration{}
	tools := map[string]int{}
	var together, togetherCPU []time.Duration
	total := 0
	for b.Loop() {
		for _, s := range servers {
			d, n, c := startTime(b, s)
			alone[s.Name] = append(alone[s.Name], d)
			cpu[s.Name] = append(cpu[s.Name], c)
			tools[s.Name] = n
		}
		d, n, c := startTime(b, servers...)
		together = append(together, d)
		togetherCPU = append(togetherCPU, c)
		total = n
	}
	var sum, sumCPU, slowest time.Duration
	slowestName := ""
	var rows []string
	for _, s := range servers {
		d, c := median(alone[s.Name]), median(cpu[s.Name])
		sum += d
		sumCPU += c
		if d > slowest {
			slowest, slowestName = d, s.Name
		}
		rows = append(rows, fmt.Sprintf("| %s | %d | %s | %s |", s.Name, tools[s.Name], ms(d), ms(c)))
	}
	tog := median(together)
	var out strings.Builder
	fmt.Fprintf(&out, "\n| servers | tools | start to all tools listed | CPU used by the servers |\n|---|---|---|---|\n%s\n", strings.Join(rows, "\n"))
	fmt.Fprintf(&out, "| **sum of the above, one after another** | %d | %s | %s |\n", total, ms(sum), ms(sumCPU))
	fmt.Fprintf(&out, "| **slowest alone (%s)** | %d | %s | %s |\n", slowestName, tools[slowestName], ms(slowest), ms(median(cpu[slowestName])))
	fmt.Fprintf(&out, "| **all %d together** | %d | %s | %s |\n", len(servers), total, ms(tog), ms(median(togetherCPU)))
	fmt.Fprintf(&out, "\ntogether / slowest alone = %.2f; together / sum = %.2f; CPU floor with %d CPUs = %s; medians of %d runs\n",
		float64(tog)/float64(slowest), float64(tog)/float64(sum), runtime.NumCPU(), ms(median(togetherCPU)/time.Duration(runtime.NumCPU())), len(together))
	if len(missing) > 0 {
		fmt.Fprintf(&out, "not installed (skipped): %s\n", strings.Join(missing, ", "))
	}
	// Printed, not logged: go test cuts benchmark logs to a few lines.
	fmt.Print(out.String())
	b.ReportMetric(float64(tog.Milliseconds()), "together-ms")
	b.ReportMetric(float64(slowest.Milliseconds()), "slowest-alone-ms")
	b.ReportMetric(float64(sum.Milliseconds()), "sum-alone-ms")
	b.ReportMetric(0, "ns/op") // the wall time of an iteration means nothing here
}

// BenchmarkStartConcurrency isolates the manager's own concurrency from CPU
// contention: 8 servers (the test binary) that each wait 1 s before
// answering, as a server fetching something at start does.
func BenchmarkStartConcurrency(b *testing.B) {
	var servers []config.MCPServer
	for i := range 8 {
		s := testServerConfig(b, fmt.Sprintf("slow%d", i), "slow")
		s.Env["AGENT_MCP_TEST_DELAY"] = "1s"
		servers = append(servers, s)
	}
	var alones, togethers, cpus []time.Duration
	for b.Loop() {
		d, _, _ := startTime(b, servers[0])
		alones = append(alones, d)
		d, _, c := startTime(b, servers...)
		togethers = append(togethers, d)
		cpus = append(cpus, c)
	}
	alone, together := median(alones), median(togethers)
	fmt.Printf("\n8 servers that each take 1 s to answer: one alone %s, all 8 together %s (sequential would be about %s); the 8 used %s of CPU; medians of %d runs\n",
		ms(alone), ms(together), ms(8*alone), ms(median(cpus)), len(togethers))
	b.ReportMetric(float64(together.Milliseconds()), "together-ms")
	b.ReportMetric(float64(alone.Milliseconds()), "alone-ms")
	b.ReportMetric(0, "ns/op")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }
