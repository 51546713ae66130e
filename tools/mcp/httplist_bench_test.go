//go:build unix

package mcp

import (
	"bufio"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"runtime/metrics"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/config"
)

// BenchmarkColdHTTPListing is the agent's side of a first run's listing:
// the eleven streamable HTTP servers of the start bench connected, listed
// and closed (initialize, notifications/initialized, tools/list, the GET
// stream, DELETE), with no catalog cache, as a cold run does. The servers
// run in a child process: cpu-ms/op is this process's CPU (user+sys) an
// iteration, the client's alone. Idle connections are dropped after each
// iteration, as a new process starts without them. Run with
//
//	go test ./tools/mcp -run '^$' -bench ColdHTTPListing -benchtime 50x
//
// It needs ../shared/catalogs/ALL.json.
func BenchmarkColdHTTPListing(b *testing.B) {
	if _, err := os.Stat(catalogPath()); err != nil {
		b.Skipf("needs ../shared/catalogs/ALL.json (the shared data beside the module): %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), testServerEnv+"=catalog-http")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	var servers []config.MCPServer
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "ready" {
		name, url, _ := strings.Cut(sc.Text(), " ")
		servers = append(servers, config.MCPServer{Name: name, Type: config.MCPHTTP, URL: url, Timeout: time.Minute})
	}
	slices.SortFunc(servers, func(a, b config.MCPServer) int { return strings.Compare(a.Name, b.Name) })
	if len(servers) == 0 {
		b.Fatal("the catalog server printed no server")
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	created := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	goroutines := func() uint64 { metrics.Read(created); return created[0].Value.Uint64() }
	tools := 0
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, g0 := cpu(), goroutines()
	for b.Loop() {
		m := NewManager(servers, Options{Logger: slog.New(slog.DiscardHandler)})
		if errs := m.Start(b.Context()); len(errs) > 0 {
			b.Fatalf("start: %v", errs)
		}
		tools = len(m.Tools(false))
		_ = m.Close()
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	}
	b.ReportMetric(float64(cpu()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(goroutines()-g0)/float64(b.N), "goroutines/op")
	b.ReportMetric(float64(tools), "tools")
}
