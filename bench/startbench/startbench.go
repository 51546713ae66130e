// Package startbench measures what a run of the real agent binary costs as
// the catalog grows: wall time, CPU, peak RSS of a -p turn against the
// providers' fakes, the time from process start to the first request and
// that request's context tokens, for 282 to 10,000 deferred tools on each
// adapter; plus eager mode, `agent tools`, and the start with the ten real
// npm MCP servers, cold and with the catalog cache warm.
//
// The agent runs as a subprocess; its CPU and peak RSS come from its
// rusage. The MCP servers of the catalog runs are streamable HTTP servers
// inside the bench process (not children of the agent, so its rusage is its
// own), the fakes too, behind a proxy that notes when the first request
// arrives.
package startbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/bench/internal/faket"
	"github.com/agent-dev/agent/bench/internal/proc"
	"github.com/agent-dev/agent/bench/tokenbench"
	"github.com/agent-dev/agent/internal/starttrace"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	"github.com/agent-dev/agent/providers/openairesponses/responsestest"
	"github.com/agent-dev/agent/tools/mcp"
)

// Adapters measured, by their tokenbench names.
var Adapters = []string{tokenbench.Anthropic, tokenbench.Responses, tokenbench.Chat}

// UplinkMbps is the simulated uplink of the upload column.
const UplinkMbps = 20

// uploadMS is how long n bytes take to upload at UplinkMbps.
func uploadMS(n int) float64 { return float64(n) * 8 / (UplinkMbps * 1e6) * 1000 }

// Modes besides "deferred" (the defaults): wire budget off, to compare the
// native forms past it; Responses' client search, Codex's form.
const (
	modeNoBudget = "deferred, no wire budget"
	modeCodex    = "client search (Codex-style)"
)

// DefaultSizes are the catalog sizes of the issue.
var DefaultSizes = []int{282, 1000, 5000, 10000}

// Options configure a run.
type Options struct {
	// Agent is the agent binary to run.
	Agent string
	// Catalog is ALL.json of ../shared/catalogs.
	Catalog  string
	Sizes    []int
	Adapters []string
	// Runs is the number of measured runs per cell (after one that fills
	// the cache); the median is reported.
	Runs int
	// NodeBin is the .bin directory of the npm servers (.ci/install-mcp.sh
	// --bench); empty or missing skips the npm rows.
	NodeBin string
	// Progress receives a line per run.
	Progress io.Writer
	// Modes, when set, keeps only these rows of each size, by the keys of
	// ModeKeys (deferred, no-budget, client, eager, tools).
	Modes []string
	// Smaps, when set, is a directory that gets each catalog run's
	// /proc/PID/smaps at its sampled peak (ADAPTER-TOOLS-MODE-cold|warm-N.smaps).
	Smaps string
	// Trace, when set, is a directory that gets each catalog run's
	// timeline (AGENT_TRACE_START, internal/starttrace) as
	// ADAPTER-TOOLS-MODE-cold|warm-N.trace: one line per mark, its time in
	// ms from the wrapper's exec of the agent, then its label.
	Trace string
}

// ModeKeys name the catalog rows' modes for Options.Modes (a mode's own
// name has commas in it).
var ModeKeys = map[string]string{"deferred": "deferred", "no-budget": modeNoBudget, "client": modeCodex, "eager": "eager", "tools": "agent tools"}

// wants tells whether o keeps rows of mode.
func (o Options) wants(mode string) bool {
	if len(o.Modes) == 0 {
		return true
	}
	for _, k := range o.Modes {
		if ModeKeys[k] == mode {
			return true
		}
	}
	return false
}

// Row is one measured cell.
type Row struct {
	Adapter string `json:"adapter"`
	Tools   int    `json:"tools"`
	Mode    string `json:"mode"` // deferred, eager, tools command, npm cold, npm cached
	// Medians over the runs.
	WallMS      float64 `json:"wall_ms"`
	CPUMS       float64 `json:"cpu_ms"`
	RSSMB       float64 `json:"peak_rss_mb"`
	FirstReqMS  float64 `json:"first_request_ms"`
	ContextToks int     `json:"first_request_context_tokens"`
	FirstReqKB  float64 `json:"first_request_kb"`
	// BytesPerReq is the mean size of the turn's request bodies, and
	// UploadMS the time the turn's bodies take to upload at UplinkMbps
	// (no loopback run shows it).
	BytesPerReq float64 `json:"bytes_per_request"`
	UploadMS    float64 `json:"upload_ms_per_turn"`
	// Cold: the same run with a new database each time (no catalog cache,
	// as a first run in a project is); medians too.
	ColdWallMS     float64 `json:"cold_wall_ms"`
	ColdCPUMS      float64 `json:"cold_cpu_ms"`
	ColdRSSMB      float64 `json:"cold_peak_rss_mb"`
	ColdFirstReqMS float64 `json:"cold_first_request_ms"`
	// How the peaks split (medians of the sampled peaks, proc.SamplePeak):
	// file-backed pages (the binary's own) and anonymous ones (heap,
	// stacks, written data), warm and cold.
	FileMB     float64 `json:"peak_file_mb"`
	AnonMB     float64 `json:"peak_anon_mb"`
	ColdFileMB float64 `json:"cold_peak_file_mb"`
	ColdAnonMB float64 `json:"cold_peak_anon_mb"`
	Requests   int     `json:"requests"`
	Runs       int     `json:"runs"`
	Note       string  `json:"note,omitempty"`
}

// Report is the whole table.
type Report struct {
	Command string `json:"command"`
	Rows    []Row  `json:"rows"`
	// Missing names npm servers that are not installed.
	Missing []string `json:"missing_npm_servers,omitempty"`
	// Tree is the npm servers' process tree with one tool called (npmtree.go).
	Tree []TreeRow `json:"npm_process_tree,omitempty"`
}

// Run measures every cell.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Runs <= 0 {
		o.Runs = 3
	}
	if len(o.Sizes) == 0 {
		o.Sizes = DefaultSizes
	}
	if len(o.Adapters) == 0 {
		o.Adapters = Adapters
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	base, err := loadBase(o.Catalog)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	for _, n := range o.Sizes {
		if n <= 0 {
			continue // --sizes none
		}
		cat := generate(base, n)
		srv, err := serveCatalog(cat)
		if err != nil {
			return nil, err
		}
		for _, a := range o.Adapters {
			modes := []string{"deferred"}
			switch a {
			case tokenbench.Anthropic:
				modes = append(modes, modeNoBudget)
			case tokenbench.Responses:
				modes = append(modes, modeNoBudget, modeCodex)
			}
			for _, mode := range modes {
				if !o.wants(mode) {
					continue
				}
				row, err := measure(ctx, o, a, n, mode, srv)
				if err != nil {
					srv.close()
					return nil, fmt.Errorf("%s, %d tools, %s: %w", a, n, mode, err)
				}
				rep.Rows = append(rep.Rows, row)
			}
		}
		if n == o.Sizes[0] {
			for _, mode := range []string{"eager", "agent tools"} {
				if !o.wants(mode) {
					continue
				}
				row, err := measure(ctx, o, tokenbench.Anthropic, n, mode, srv)
				if err != nil {
					srv.close()
					return nil, fmt.Errorf("%s, %d tools: %w", mode, n, err)
				}
				rep.Rows = append(rep.Rows, row)
			}
		}
		srv.close()
	}
	var version []sample
	for i := 0; i < max(o.Runs, 5); i++ {
		s, err := runAgent(ctx, o.Agent, []string{"--version"}, isolatedEnv(os.TempDir()), nil)
		if err != nil {
			return nil, fmt.Errorf("--version: %w", err)
		}
		version = append(version, s)
	}
	rep.Rows = append(rep.Rows, Row{Adapter: "-", Mode: "agent --version", Note: "-", Runs: len(version),
		WallMS: median(version, func(s sample) float64 { return ms(s.wall) }),
		CPUMS:  median(version, func(s sample) float64 { return ms(s.cpu) }),
		RSSMB:  median(version, func(s sample) float64 { return float64(s.rssKB) / 1024 })})
	v := &rep.Rows[len(rep.Rows)-1]
	v.FileMB, v.AnonMB = peakSplit(version)
	if o.NodeBin != "" {
		rows, missing, err := measureNPM(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("npm servers: %w", err)
		}
		rep.Rows = append(rep.Rows, rows...)
		rep.Missing = missing
		if rep.Tree, err = measureNPMTree(ctx, o); err != nil {
			return nil, fmt.Errorf("npm servers' process tree: %w", err)
		}
	}
	return rep, nil
}

// baseTool is one tool of ALL.json.
type baseTool struct {
	Server      string          `json:"server"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

func loadBase(path string) ([]baseTool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the catalog: %w (run from the module root with ../shared/catalogs present, or pass --catalog)", err)
	}
	var ts []baseTool
	if err := json.Unmarshal(b, &ts); err != nil {
		return nil, fmt.Errorf("catalog %s: %w", path, err)
	}
	return ts, nil
}

var regions = []string{"eu", "us", "ap", "sa", "af", "me", "ca", "oc", "an", "ar"}

// generate makes an n-tool catalog on the real catalog's 11 servers: copy
// 0 is the real catalog, copy k adds every tool again with a region suffix
// and a tag in its description, as if each server exposed several
// deployments.
func generate(base []baseTool, n int) map[string][]baseTool {
	out := map[string][]baseTool{}
	for i := 0; i < n; i++ {
		t := base[i%len(base)]
		if k := i / len(base); k > 0 {
			region := regions[(k-1)%len(regions)]
			if k > len(regions) {
				region += fmt.Sprint(k)
			}
			t.Name += "_" + region
			t.Description = fmt.Sprintf("%s (deployment %s, replica zq%04d)", t.Description, region, i)
		}
		out[t.Server] = append(out[t.Server], t)
	}
	return out
}

// catalogServers are the catalog's MCP servers, served over streamable
// HTTP from this process.
type catalogServers struct {
	urls  map[string]string
	close func()
}

func serveCatalog(cat map[string][]baseTool) (*catalogServers, error) {
	cs := &catalogServers{urls: map[string]string{}}
	var closers []func()
	cs.close = func() {
		for _, c := range closers {
			c()
		}
	}
	for name, ts := range cat {
		s := server.NewMCPServer(name, "1.0.0", server.WithToolCapabilities(false))
		var sts []server.ServerTool
		for _, t := range ts {
			tool := mcpgo.NewToolWithRawSchema(t.Name, t.Description, t.InputSchema)
			sts = append(sts, server.ServerTool{Tool: tool, Handler: func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText("ok: " + req.Params.Name), nil
			}})
		}
		s.AddTools(sts...)
		l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
		if err != nil {
			cs.close()
			return nil, err
		}
		hs := &http.Server{Handler: server.NewStreamableHTTPServer(s)}
		go func() { _ = hs.Serve(l) }()
		closers = append(closers, func() { _ = hs.Close() })
		cs.urls[name] = "http://" + l.Addr().String() + "/mcp"
	}
	return cs, nil
}

// target is the tool every scripted turn finds and calls.
var target = mcp.ToolName("server-everything", "echo")

const prompt = "Echo hello back to me with the echo tool."

// provider is one adapter's fake, scripted per run, behind the proxy.
type provider struct {
	args   []string
	env    []string
	script func(eager bool)
	// onBody, when set, scripts the fake's answer to each request from
	// the request itself (the form it takes depends on the wire budget).
	onBody func(body []byte)
	// bodies of the accepted requests
	accepted func() [][]byte
}

func startProvider(ft *faket.T, adapter, proxyURL string, setUpstream func(string)) (*provider, error) {
	switch adapter {
	case tokenbench.Anthropic:
		f := anthropictest.NewServer(ft)
		setUpstream(f.URL)
		return &provider{
			args: []string{"--provider", "anthropic", "--base-url", proxyURL},
			env:  []string{"ANTHROPIC_API_KEY=" + anthropictest.DefaultAPIKey},
			script: func(eager bool) {
				first := anthropictest.Turn{Search: "echo", Call: "$found", Input: map[string]any{"message": "hello"}}
				if eager {
					first = anthropictest.Turn{Call: target, Input: map[string]any{"message": "hello"}}
				}
				f.Script = anthropictest.NewScript(first, anthropictest.Turn{Text: "hello"})
			},
			accepted: func() [][]byte {
				var out [][]byte
				for _, r := range f.Requests() {
					if r.Status == 200 {
						out = append(out, r.Body)
					}
				}
				return out
			},
		}, nil
	case tokenbench.Responses:
		f := responsestest.NewServer(ft)
		u, _ := url.Parse(f.URL)
		setUpstream(u.Scheme + "://" + u.Host)
		return &provider{
			args:   []string{"--provider", "openai", "--base-url", proxyURL + "/v1", "--model", "gpt-5.4"},
			env:    []string{"OPENAI_API_KEY=" + f.APIKey},
			script: func(bool) {},
			onBody: func(body []byte) { f.Script(responsesTurn(body)) },
			accepted: func() [][]byte {
				var out [][]byte
				for _, r := range f.Requests() {
					if r.Status == 200 {
						out = append(out, r.Body)
					}
				}
				return out
			},
		}, nil
	case tokenbench.Chat:
		f := chattest.NewServer(ft)
		setUpstream(f.URL)
		return &provider{
			args: []string{"--provider", "ollama", "--base-url", proxyURL + "/v1", "--model", "qwen3"},
			script: func(bool) {
				f.Script(chattest.Calls(chattest.SearchCall("call_1", "select:"+target, 0)),
					chattest.Calls(chattest.WrappedCall("call_2", target, map[string]any{"message": "hello"})),
					chattest.Text("hello"))
			},
			accepted: func() [][]byte {
				var out [][]byte
				for _, r := range f.Requests() {
					if r.Status == 200 {
						out = append(out, r.Body)
					}
				}
				return out
			},
		}, nil
	}
	return nil, fmt.Errorf("unknown adapter %q", adapter)
}

// responsesTurn is the Responses model's answer to a request: hosted
// search and the call in one response, or with client search the search,
// then the call once the tool is loaded; then the answer.
func responsesTurn(body []byte) responsestest.Turn {
	var req struct {
		Tools []struct {
			Type      string `json:"type"`
			Execution string `json:"execution"`
		} `json:"tools"`
		Input []struct {
			Type string `json:"type"`
		} `json:"input"`
	}
	_ = json.Unmarshal(body, &req)
	hosted, client := false, false
	for _, t := range req.Tools {
		if t.Type == "tool_search" {
			client, hosted = t.Execution == "client", t.Execution != "client"
		}
	}
	last := ""
	if n := len(req.Input); n > 0 {
		last = req.Input[n-1].Type
	}
	call := responsestest.Call(target, `{"message":"hello"}`)
	switch {
	case last == "function_call_output":
		return responsestest.Turn{responsestest.Text("hello")}
	case last == "tool_search_output" || !hosted && !client:
		return responsestest.Turn{call}
	case hosted:
		return responsestest.Turn{responsestest.HostedSearch("echo"), call}
	}
	return responsestest.Turn{responsestest.ClientSearch("select:" + target)}
}

// sample is one run of the agent.
type sample struct {
	wall, cpu, firstReq time.Duration
	rssKB               int64 // rusage's ru_maxrss: reaped descendants' included
	ownKB               int64 // the agent's own peak (proc.SamplePeak's HWM)
	stdout, stderr      string
	peak                proc.Memory // the sampled peak's file and anonymous parts
	treeKB              int64       // with proc.TreeEnv (proc.SampleTree)
	treeProcs           int
}

// runAgent runs the binary through the wrapper and reads its rusage.
func runAgent(ctx context.Context, bin string, args, env []string, px *proxy) (sample, error) {
	if wrapper == "" {
		return sample{}, errors.New("startbench: no wrapper (BuildWrapper was not called)")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return sample{}, err
	}
	defer pr.Close()
	cmd := exec.CommandContext(ctx, wrapper, append([]string{bin}, args...)...)
	cmd.Env = append(env, proc.WrapEnv+"=1")
	cmd.ExtraFiles = []*os.File{pw}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if px != nil {
		px.reset()
	}
	err = cmd.Run()
	pw.Close()
	s := sample{stdout: out.String(), stderr: errb.String()}
	var r proc.Report
	if derr := json.NewDecoder(pr).Decode(&r); derr != nil {
		return s, fmt.Errorf("run %s: %v %v\nstderr: %s", bin, err, derr, cut(s.stderr))
	}
	s.wall, s.cpu, s.rssKB = time.Duration(r.WallNS), time.Duration(r.CPUNS), r.RSSKB
	s.peak, s.treeKB, s.treeProcs, s.ownKB = r.Peak, r.TreeKB, r.TreeProcs, r.Peak.HWM
	if px != nil {
		if f := px.firstAt(); !f.IsZero() {
			s.firstReq = f.Sub(time.Unix(0, r.StartNS))
		}
	}
	if err == nil {
		err = fromExec(env, r.StartNS, r.WallNS, s.firstReq)
	}
	if err != nil || r.Code != 0 {
		return s, fmt.Errorf("%s %s: exit %d %v\nstderr: %s", filepath.Base(bin), strings.Join(args, " "), r.Code, err, cut(s.stderr))
	}
	return s, nil
}

func cut(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

// isolatedEnv is a clean HOME and XDG dirs under dir, plus extra.
func isolatedEnv(dir string, extra ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_DATA_HOME=" + filepath.Join(dir, "data")}
	return append(env, extra...)
}

func writeMCPConfig(dir string, servers map[string]any) (string, error) {
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "mcp.json")
	return p, os.WriteFile(p, b, 0o600)
}

// measure runs one cell: a run that fills the cache, then o.Runs runs.
func measure(ctx context.Context, o Options, adapter string, n int, mode string, srv *catalogServers) (Row, error) {
	dir, err := os.MkdirTemp("", "startbench-")
	if err != nil {
		return Row{}, err
	}
	defer os.RemoveAll(dir)
	servers := map[string]any{}
	for name, u := range srv.urls {
		servers[name] = map[string]any{"type": "http", "url": u}
	}
	cfg, err := writeMCPConfig(dir, servers)
	if err != nil {
		return Row{}, err
	}
	px, err := newProxy()
	if err != nil {
		return Row{}, err
	}
	defer px.close()
	ft := &faket.T{}
	defer ft.Close()
	p, err := startProvider(ft, adapter, px.url, px.setUpstream)
	if err != nil {
		return Row{}, err
	}
	px.mu.Lock()
	px.onBody = p.onBody
	px.mu.Unlock()
	// The fakes count deferred definitions as input tokens, which the APIs
	// do not: auto-compaction would react to the inflated usage.
	conf := filepath.Join(dir, "config.json")
	if err := os.WriteFile(conf, []byte(`{"auto_compact": false}`), 0o600); err != nil {
		return Row{}, err
	}
	if mode == modeNoBudget {
		// Past any catalog here: the native forms at every size.
		if err := os.WriteFile(conf, []byte(`{"auto_compact": false, "wire_budget": 1000000000000}`), 0o600); err != nil {
			return Row{}, err
		}
	}
	argsFor := func(db string) []string {
		args := append([]string{"-p", prompt, "--config", conf, "--mcp-config", cfg, "--db", db, "--output-format", "json"}, p.args...)
		switch mode {
		case "deferred", modeNoBudget:
			args = append(args, "--defer")
		case modeCodex:
			args = append(args, "--defer", "--search", "client")
		case "agent tools":
			args = append([]string{"tools", "--mcp-config", cfg, "--db", db}, p.args...)
		}
		return args
	}
	env := isolatedEnv(dir, p.env...)
	row := Row{Adapter: adapter, Tools: n, Mode: mode}
	// Cold runs each on a database of its own (the first run of a project:
	// every server is waited for and listed); the warm runs read the
	// catalog of a run that fills the cache first, alternating with them
	// (runOrder).
	smaps := func(kind string, i int) []string {
		e := env[:len(env):len(env)]
		name := strings.NewReplacer(" ", "", ",", "-", "(", "", ")", "").Replace(fmt.Sprintf("%s-%d-%s-%s-%d", adapter, n, mode, kind, i))
		if o.Smaps != "" {
			e = append(e, proc.SmapsEnv+"="+filepath.Join(o.Smaps, name+".smaps"))
		}
		if o.Trace != "" {
			e = append(e, starttrace.Env+"="+filepath.Join(o.Trace, name+".trace"))
		}
		return e
	}
	// A run first, not measured, fills the cache the warm runs read; it
	// also takes what only the first runs after the bench's setup pay
	// (runOrder says why neither column should).
	warm := filepath.Join(dir, "warm.db")
	if _, err := runOnce(ctx, o, p, mode, argsFor(warm), env, px, ft, nil); err != nil {
		return row, err
	}
	var cold, samples []sample
	for _, r := range runOrder(o.Runs) {
		if r.cold {
			s, err := runOnce(ctx, o, p, mode, argsFor(filepath.Join(dir, fmt.Sprintf("cold-%d.db", r.i))), smaps("cold", r.i), px, ft, nil)
			if err != nil {
				return row, err
			}
			fmt.Fprintf(o.Progress, "%s %d %s cold run %d: wall %s cpu %s rss %d MB (file %d, anon %d) first request %s\n", adapter, n, mode, r.i,
				s.wall.Round(time.Millisecond), s.cpu.Round(time.Millisecond), s.rssKB/1024, s.peak.File/1024, s.peak.Anon/1024, s.firstReq.Round(time.Millisecond))
			cold = append(cold, s)
			continue
		}
		last := r.i == o.Runs
		s, err := runOnce(ctx, o, p, mode, argsFor(warm), smaps("warm", r.i), px, ft, func(bodies [][]byte) error {
			row.Requests = len(bodies)
			if !last || len(bodies) == 0 {
				return nil
			}
			total := 0
			for _, b := range bodies {
				total += len(b)
			}
			row.FirstReqKB = float64(len(bodies[0])) / 1024
			row.BytesPerReq = float64(total) / float64(len(bodies))
			row.UploadMS = uploadMS(total)
			var err error
			row.ContextToks, err = tokenbench.ContextTokens(adapter, bodies[0])
			return err
		})
		if err != nil {
			return row, err
		}
		fmt.Fprintf(o.Progress, "%s %d %s run %d: wall %s cpu %s rss %d MB (file %d, anon %d) first request %s\n", adapter, n, mode, r.i,
			s.wall.Round(time.Millisecond), s.cpu.Round(time.Millisecond), s.rssKB/1024, s.peak.File/1024, s.peak.Anon/1024, s.firstReq.Round(time.Millisecond))
		samples = append(samples, s)
	}
	row.ColdWallMS = median(cold, func(s sample) float64 { return ms(s.wall) })
	row.ColdCPUMS = median(cold, func(s sample) float64 { return ms(s.cpu) })
	row.ColdRSSMB = median(cold, func(s sample) float64 { return float64(s.rssKB) / 1024 })
	row.ColdFirstReqMS = median(cold, func(s sample) float64 { return ms(s.firstReq) })
	row.ColdFileMB, row.ColdAnonMB = peakSplit(cold)
	row.Runs = len(samples)
	row.WallMS = median(samples, func(s sample) float64 { return ms(s.wall) })
	row.CPUMS = median(samples, func(s sample) float64 { return ms(s.cpu) })
	row.RSSMB = median(samples, func(s sample) float64 { return float64(s.rssKB) / 1024 })
	row.FirstReqMS = median(samples, func(s sample) float64 { return ms(s.firstReq) })
	row.FileMB, row.AnonMB = peakSplit(samples)
	return row, nil
}

// benchRun is one measured run of a cell: cold (a database of its own,
// no catalog cached) or warm (the cache filled), and its number
// (cold-I, warm-I in the progress and the timelines' names).
type benchRun struct {
	cold bool
	i    int
}

// runOrder is the order of a cell's runs: cold and warm alternate, each
// pair's order the other's reverse (cold 0, warm 1, warm 2, cold 1, cold
// 2, warm 3...), after the run that fills the cache. All the cold runs
// went first once, and the cold column took what only the first runs after
// the bench's setup pay, in the bench's own process: the fake provider,
// which answers from this process on the same two cores, spent about 1.6x
// its usual CPU on its first few answers (its heap growing into memory the
// process had never touched: perf put the extra under memclr in the
// fake's search), so the cold first answer came 15-20 ms later than the
// warm one with the very same request. Alternated, any drift of the
// bench's process or of the machine over a cell falls on both columns.
func runOrder(runs int) []benchRun {
	var out []benchRun
	for i := 0; i < runs; i++ {
		c, w := benchRun{true, i}, benchRun{false, i + 1}
		if i%2 == 0 {
			out = append(out, c, w)
		} else {
			out = append(out, w, c)
		}
	}
	return out
}

// peakSplit is the medians of the samples' peaks' file-backed and
// anonymous parts, in MB.
func peakSplit(ss []sample) (file, anon float64) {
	return median(ss, func(s sample) float64 { return float64(s.peak.File) / 1024 }),
		median(ss, func(s sample) float64 { return float64(s.peak.Anon) / 1024 })
}

// runOnce runs the agent once and checks the turn found and called the
// tool; bodies, when set, gets the request bodies the fake accepted.
func runOnce(ctx context.Context, o Options, p *provider, mode string, args, env []string, px *proxy, ft *faket.T, bodies func([][]byte) error) (sample, error) {
	if mode != "agent tools" {
		p.script(mode == "eager")
	}
	before := len(p.accepted())
	s, err := runAgent(ctx, o.Agent, args, env, px)
	if err != nil {
		return s, err
	}
	if err := ft.Err(); err != nil {
		return s, err
	}
	if mode == "agent tools" {
		return s, nil
	}
	var res struct {
		IsError   bool `json:"is_error"`
		ToolCalls []struct {
			IsError bool `json:"is_error"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal([]byte(s.stdout), &res); err != nil || res.IsError || len(res.ToolCalls) != 1 || res.ToolCalls[0].IsError {
		return s, fmt.Errorf("the turn did not find and call the tool: %s\nstderr: %s", cut(s.stdout), cut(s.stderr))
	}
	if bodies != nil {
		return s, bodies(p.accepted()[before:])
	}
	return s, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(ss []sample, f func(sample) float64) float64 {
	if len(ss) == 0 {
		return 0
	}
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	sort.Float64s(v)
	return v[len(v)/2]
}

// npmServers are the ten npm servers of ../shared/catalogs/SERVERS.md as
// tools/mcp's start benchmark runs them.
func npmServers(bin, dir string) (map[string]any, []string) {
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
		{"desktop-commander", "desktop-commander", nil, map[string]string{"HOME": dir}},
		{"chrome-devtools", "chrome-devtools-mcp", nil, nil},
	}
	out := map[string]any{}
	var missing []string
	for _, s := range specs {
		p := filepath.Join(bin, s.bin)
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, s.name)
			continue
		}
		out[s.name] = map[string]any{"command": p, "args": s.args, "env": s.env, "timeout": 120}
	}
	return out, missing
}

// measureNPM times a deferred -p turn with the ten npm servers: cold (no
// cache: the run waits for every server) and cached.
func measureNPM(ctx context.Context, o Options) ([]Row, []string, error) {
	dir, err := os.MkdirTemp("", "startbench-npm-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	servers, missing := npmServers(o.NodeBin, dir)
	if len(servers) == 0 {
		return nil, missing, nil
	}
	cfg, err := writeMCPConfig(dir, servers)
	if err != nil {
		return nil, nil, err
	}
	px, err := newProxy()
	if err != nil {
		return nil, nil, err
	}
	defer px.close()
	ft := &faket.T{}
	defer ft.Close()
	f := anthropictest.NewServer(ft)
	px.setUpstream(f.URL)
	env := isolatedEnv(dir, "ANTHROPIC_API_KEY="+anthropictest.DefaultAPIKey)
	var rows []Row
	for _, mode := range []string{"npm cold", "npm cached"} {
		var samples []sample
		for i := 0; i < o.Runs; i++ {
			db := filepath.Join(dir, "cold.db")
			if mode == "npm cold" {
				_ = os.Remove(db)
				_ = os.Remove(db + "-wal")
				_ = os.Remove(db + "-shm")
				db = filepath.Join(dir, fmt.Sprintf("cold-%d.db", i))
			} else {
				db = filepath.Join(dir, "warm.db")
				if i == 0 {
					// fill the cache
					f.Script = anthropictest.NewScript(anthropictest.Turn{Text: "hello"})
					if _, err := runAgent(ctx, o.Agent, []string{"-p", "hi", "--provider", "anthropic", "--base-url", px.url,
						"--mcp-config", cfg, "--db", db, "--defer"}, env, px); err != nil {
						return nil, nil, err
					}
				}
			}
			f.Script = anthropictest.NewScript(anthropictest.Turn{Text: "hello"})
			s, err := runAgent(ctx, o.Agent, []string{"-p", "hi", "--provider", "anthropic", "--base-url", px.url,
				"--mcp-config", cfg, "--db", db, "--defer"}, env, px)
			if err != nil {
				return nil, nil, err
			}
			fmt.Fprintf(o.Progress, "%s run %d: wall %s first request %s rss %d MB (own %d MB)\n", mode, i, s.wall.Round(time.Millisecond), s.firstReq.Round(time.Millisecond), s.rssKB/1024, s.ownKB/1024)
			samples = append(samples, s)
		}
		row := Row{Adapter: tokenbench.Anthropic, Tools: 0, Mode: mode, Runs: len(samples),
			Note: fmt.Sprintf("%d npm servers", len(servers))}
		row.WallMS = median(samples, func(s sample) float64 { return ms(s.wall) })
		row.CPUMS = median(samples, func(s sample) float64 { return ms(s.cpu) })
		// The agent's own peak: its rusage's ru_maxrss folds in the Node
		// servers it reaped (164 MB for a cold run whose agent peaked at 28).
		row.RSSMB = median(samples, func(s sample) float64 { return float64(s.ownKB) / 1024 })
		row.FirstReqMS = median(samples, func(s sample) float64 { return ms(s.firstReq) })
		rows = append(rows, row)
	}
	return rows, missing, nil
}

// Markdown writes the report as tables.
func Markdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` (medians; the agent binary, built as a release is, as a subprocess of a small wrapper; CPU and peak RSS from its rusage, but the npm rows' peak RSS is the agent's own VmHWM read every %s until it exits, since rusage counts the servers it reaped, as their CPU counts in those rows' CPU; how the peak splits into file-backed pages, the binary's own, and anonymous ones from /proc/PID/status sampled every %s)\n\n", rep.Command, proc.MemoryInterval, proc.MemoryInterval)
	fmt.Fprintf(&b, "| adapter | tools | mode | wall ms | cold wall ms | CPU ms | cold CPU ms | peak RSS MB | cold RSS MB | peak file / anon MB | cold file / anon MB | first request ms | cold first request ms | first-request context tokens | KB per request | upload ms per turn at %d Mbit/s | requests |\n", UplinkMbps)
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	dash := func(v float64, f string) string {
		if v <= 0 {
			return "-"
		}
		return fmt.Sprintf(f, v)
	}
	for _, r := range rep.Rows {
		tools := fmt.Sprint(r.Tools)
		if r.Tools == 0 {
			tools = r.Note
		}
		ctx, reqs := "-", "-"
		if r.ContextToks > 0 {
			ctx, reqs = fmt.Sprint(r.ContextToks), fmt.Sprint(r.Requests)
		}
		split := func(file, anon float64) string {
			if file <= 0 && anon <= 0 {
				return "-"
			}
			return fmt.Sprintf("%.1f / %.1f", file, anon)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %s | %.0f | %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Adapter, tools, r.Mode,
			r.WallMS, dash(r.ColdWallMS, "%.0f"), r.CPUMS, dash(r.ColdCPUMS, "%.0f"), r.RSSMB, dash(r.ColdRSSMB, "%.1f"), split(r.FileMB, r.AnonMB), split(r.ColdFileMB, r.ColdAnonMB),
			dash(r.FirstReqMS, "%.0f"), dash(r.ColdFirstReqMS, "%.0f"),
			ctx, dash(r.BytesPerReq/1024, "%.1f"), dash(r.UploadMS, "%.0f"), reqs)
	}
	if len(rep.Missing) > 0 {
		fmt.Fprintf(&b, "\nnpm servers not installed (.ci/install-mcp.sh --bench): %s\n", strings.Join(rep.Missing, ", "))
	}
	treeMarkdown(&b, rep.Tree)
	b.WriteString(goals(rep))
	_, err := io.WriteString(w, b.String())
	return err
}

// goals checks the targets.
func goals(rep *Report) string {
	find := func(adapter string, n int, mode string) *Row {
		for i := range rep.Rows {
			r := &rep.Rows[i]
			if r.Adapter == adapter && r.Tools == n && r.Mode == mode {
				return r
			}
		}
		return nil
	}
	var lines []string
	for _, a := range Adapters {
		small, r5, r10 := find(a, 282, "deferred"), find(a, 5000, "deferred"), find(a, 10000, "deferred")
		if small != nil && r5 != nil {
			ratio := r5.WallMS / small.WallMS
			lines = append(lines, fmt.Sprintf("- %s: 5,000 tools take %.2f× the wall of 282 (goal ≤ 3×) %s; peak RSS %.0f MB (goal ≤ 80) %s",
				a, ratio, mark(ratio <= 3), r5.RSSMB, mark(r5.RSSMB <= 80)))
		}
		if r10 != nil {
			lines = append(lines, fmt.Sprintf("- %s: 10,000 tools peak RSS %.0f MB (goal ≤ 120) %s", a, r10.RSSMB, mark(r10.RSSMB <= 120)))
		}
	}
	for _, r := range rep.Rows {
		if r.Mode == "deferred" {
			lines = append(lines, fmt.Sprintf("- %s, %d tools: first request %.0f ms after process start (goal ≤ 150 with a warm cache) %s", r.Adapter, r.Tools, r.FirstReqMS, mark(r.FirstReqMS <= 150)))
		}
	}
	if r := find(tokenbench.Anthropic, 282, "deferred"); r != nil && r.ColdWallMS > 0 {
		ratio := r.ColdWallMS / r.WallMS
		lines = append(lines, fmt.Sprintf("- cold -p turn at 282 tools: %.0f MB (goal ≤ 40) %s, %.2f× the warm wall (goal ≤ 1.1×) %s",
			r.ColdRSSMB, mark(r.ColdRSSMB <= 40), ratio, mark(ratio <= 1.1)))
	}
	for _, a := range Adapters {
		if r := find(a, 5000, "deferred"); r != nil && r.BytesPerReq > 0 {
			lines = append(lines, fmt.Sprintf("- %s, 5,000 tools: %.0f KB a request (goal ≤ 100) %s", a, r.BytesPerReq/1024, mark(r.BytesPerReq <= 100*1024)))
		}
	}
	if e := find(tokenbench.Anthropic, 282, "eager"); e != nil {
		lines = append(lines, fmt.Sprintf("- eager mode at 282 tools: %.0f MB (goal ≤ 45) %s", e.RSSMB, mark(e.RSSMB <= 45)))
	}
	if v := find("-", 0, "agent --version"); v != nil {
		lines = append(lines, fmt.Sprintf("- `agent --version`: %.0f ms (goal ≤ 20) %s, %.1f MB (goal ≤ 15) %s", v.WallMS, mark(v.WallMS <= 20), v.RSSMB, mark(v.RSSMB <= 15)))
	}
	if t := find(tokenbench.Anthropic, 282, "agent tools"); t != nil {
		lines = append(lines, fmt.Sprintf("- `agent tools` at 282 tools: %.2f s (goal ≤ 0.3) %s", t.WallMS/1000, mark(t.WallMS <= 300)))
	}
	for _, r := range rep.Rows {
		if r.Mode == "npm cached" {
			lines = append(lines, fmt.Sprintf("- %s, cached: first request %.0f ms after process start (goal ≤ 150) %s", r.Note, r.FirstReqMS, mark(r.FirstReqMS <= 150)))
		}
	}
	return "\nGoals:\n" + strings.Join(lines, "\n") + "\n"
}

func mark(ok bool) string {
	if ok {
		return "— met"
	}
	return "— **not met**"
}

// fromExec rewrites the timeline a run wrote (starttrace.Env in env, if
// any) with each mark's time in ms from the exec at startNS, plus when the
// first request reached the provider's proxy (firstReq after the exec,
// when non-zero) and the process's end (wallNS), in time order.
func fromExec(env []string, startNS, wallNS int64, firstReq time.Duration) error {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, starttrace.Env+"="); ok {
			path = v
		}
	}
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("the run's timeline: %w", err)
	}
	type mark struct {
		ms    float64
		label string
	}
	var marks []mark
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		ns, rest, _ := strings.Cut(line, " ")
		_, label, _ := strings.Cut(rest, " ")
		var at int64
		if _, err := fmt.Sscan(ns, &at); err != nil {
			return fmt.Errorf("the run's timeline %s: %q: %w", path, line, err)
		}
		marks = append(marks, mark{float64(at-startNS) / 1e6, label})
	}
	if firstReq > 0 {
		marks = append(marks, mark{ms(firstReq), "(bench) first request reached the provider's proxy"})
	}
	marks = append(marks, mark{float64(wallNS) / 1e6, "(bench) process reaped: the wall time"})
	sort.SliceStable(marks, func(i, j int) bool { return marks[i].ms < marks[j].ms })
	var out bytes.Buffer
	for _, m := range marks {
		fmt.Fprintf(&out, "%8.2f %s\n", m.ms, m.label)
	}
	return os.WriteFile(path, out.Bytes(), 0o600)
}
