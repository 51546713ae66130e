// Package telemetrybench measures what telemetry costs a -p turn: the same
// turn (a native tool search, one MCP tool call, the answer: two requests
// to the Anthropic fake) with telemetry off, on with no collector listening
// (http/protobuf and grpc), and on with a local receiver. Runs alternate
// between the cells, so a drift of the machine's speed hits all of them; the
// ratio to "off" is taken run by run and its median reported.
package telemetrybench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/bench/internal/faket"
	"github.com/agent-dev/agent/bench/startbench"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/telemetry/otlptest"
)

// Options are the bench's inputs.
type Options struct {
	Agent    string // the agent binary
	Runs     int    // measured runs per cell, after one warm-up each
	Progress io.Writer
}

// Row is one cell's figures.
type Row struct {
	Cell   string  `json:"cell"`
	Runs   int     `json:"runs"`
	WallMS float64 `json:"wall_ms"`
	CPUMS  float64 `json:"cpu_ms"`
	// PeakMB is the median of the runs' peak RSS (MiB; 0 where the system
	// does not report it).
	PeakMB float64 `json:"peak_rss_mib"`
	// Ratio is the median of the runs' wall time over the paired "off"
	// run's.
	Ratio float64 `json:"ratio_to_off"`
	// Spans is how many spans the receiver got (receiver up only).
	Spans int `json:"spans,omitempty"`
}

// Report is the bench's result.
type Report struct {
	Command string `json:"command"`
	Rows    []Row  `json:"rows"`
}

type cell struct {
	name string
	env  []string
	rcv  *otlptest.Receiver
}

// Run measures the cells.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Runs <= 0 {
		o.Runs = 15
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	ft := &faket.T{}
	defer ft.Close()
	fake := anthropictest.NewServer(ft)
	mcpURL, stop, err := echoServer()
	if err != nil {
		return nil, err
	}
	defer stop()
	dir, err := os.MkdirTemp("", "telemetrybench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, `{"mcpServers":{"bench":{"type":"http","url":%q}}}`, mcpURL), 0o600); err != nil {
		return nil, err
	}
	up := otlptest.Start(ft, "http/protobuf")
	on := "AGENT_ENABLE_TELEMETRY=1"
	cells := []cell{
		{name: "off"},
		{name: "on, collector down (http/protobuf)", env: []string{on, "OTEL_EXPORTER_OTLP_ENDPOINT=" + otlptest.Down(ft), "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"}},
		{name: "on, collector down (grpc)", env: []string{on, "OTEL_EXPORTER_OTLP_ENDPOINT=" + otlptest.Down(ft), "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"}},
		{name: "on, local receiver (http/protobuf)", env: []string{on, "OTEL_EXPORTER_OTLP_ENDPOINT=" + up.Endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"}, rcv: up},
	}
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"), "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"ANTHROPIC_API_KEY=" + anthropictest.DefaultAPIKey}
	args := []string{"-p", "Echo hello back to me with the echo tool.", "--provider", "anthropic", "--base-url", fake.URL,
		"--mcp-config", cfg, "--mcp", "bench", "--defer", "--db", filepath.Join(dir, "agent.db")}
	walls := make([][]time.Duration, len(cells))
	cpus := make([][]time.Duration, len(cells))
	peaks := make([][]float64, len(cells))
	for run := -1; run < o.Runs; run++ {
		for i, c := range cells {
			fake.SetScript(anthropictest.NewScript(
				anthropictest.Turn{Search: "echo", Call: "$found", Input: map[string]any{"message": "hello"}},
				anthropictest.Turn{Text: "hello"},
			))
			wall, cpu, peak, err := runOnce(ctx, o.Agent, args, append(slices.Clone(base), c.env...))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.name, err)
			}
			if run >= 0 { // the first round warms the caches
				walls[i] = append(walls[i], wall)
				cpus[i] = append(cpus[i], cpu)
				peaks[i] = append(peaks[i], peak)
			}
		}
		fmt.Fprintf(o.Progress, "telemetry bench: round %d of %d\n", run+1, o.Runs)
	}
	rep := &Report{}
	for i, c := range cells {
		var ratios []float64
		for r := range walls[i] {
			ratios = append(ratios, float64(walls[i][r])/float64(walls[0][r]))
		}
		row := Row{Cell: c.name, Runs: len(walls[i]), WallMS: ms(median(walls[i])), CPUMS: ms(median(cpus[i])), PeakMB: medianF(peaks[i]), Ratio: medianF(ratios)}
		if c.rcv != nil {
			row.Spans = len(c.rcv.Spans())
		}
		rep.Rows = append(rep.Rows, row)
	}
	return rep, nil
}

// runOnce runs the agent once under the start bench's wrapper (whose
// ru_maxrss is the agent's own, not the bench's) and returns its wall and
// CPU time and its peak RSS in MiB.
func runOnce(ctx context.Context, bin string, args, env []string) (time.Duration, time.Duration, float64, error) {
	r, err := startbench.RunProgram(ctx, bin, args, env, false)
	if err != nil {
		return 0, 0, 0, err
	}
	return r.Wall, r.CPU, float64(r.RSSKB) / 1024, nil
}

// echoServer serves one MCP tool, echo, over streamable HTTP.
func echoServer() (string, func(), error) {
	s := server.NewMCPServer("bench", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithDescription("Echo a message back"), mcpgo.WithString("message", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(req.GetString("message", "")), nil
		})
	l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: server.NewStreamableHTTPServer(s), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(l) }()
	return "http://" + l.Addr().String() + "/mcp", func() { _ = hs.Close() }, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func medianF(fs []float64) float64 {
	s := slices.Clone(fs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Markdown writes the report as a table.
func Markdown(w io.Writer, rep *Report) error {
	if _, err := fmt.Fprintf(w, "`%s` — a -p turn: native tool search, one MCP tool call, two requests to the Anthropic fake; median of paired runs\n\n", rep.Command); err != nil {
		return err
	}
	fmt.Fprintln(w, "| telemetry | runs | wall ms | cpu ms | peak RSS MiB | wall / off | spans received |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range rep.Rows {
		spans := "-"
		if r.Spans > 0 {
			spans = fmt.Sprint(r.Spans)
		}
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.1f | %.3f× | %s |\n", r.Cell, r.Runs, r.WallMS, r.CPUMS, r.PeakMB, r.Ratio, spans)
	}
	return nil
}
