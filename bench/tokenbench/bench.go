// Package tokenbench is `go run ./bench tokens`: it measures what deferring
// tools saves, request by request, on real MCP catalogs. For each catalog,
// adapter and search mode it runs a scripted conversation through a real
// agent.Session against the adapter's fake server, takes the request
// bodies from the fake's log, and counts them with tools/tokens.
package tokenbench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools/tokens"
)

// Options select what to run.
type Options struct {
	// CatalogDir holds the real catalogs (../shared/catalogs).
	CatalogDir string
	// Catalog, when set, is the one catalog file to run.
	Catalog string
	// Generated is the size of the synthetic catalog derived from all real
	// tools; 0 skips it.
	Generated int
	Adapters  []string
	Modes     []agent.SearchMode
}

// GeneratedSize is the synthetic catalog's size in a full run.
const GeneratedSize = 2000

// Result is one catalog × adapter × mode.
type Result struct {
	Catalog  string           `json:"catalog"`
	Tools    int              `json:"tools"`
	Adapter  string           `json:"adapter"`
	Model    string           `json:"model"`
	Mode     agent.SearchMode `json:"mode"`
	Resolved agent.SearchMode `json:"resolved"`
	Requests []Request        `json:"requests"`

	// Turn 1 (the first request).
	T1Bytes         int `json:"t1_bytes"`
	T1SentTokens    int `json:"t1_sent_tokens"`
	T1ContextTokens int `json:"t1_context_tokens"`
	// Tool definitions alone: the whole tools array as sent, and the part
	// of it that enters context (no deferred definitions).
	T1ToolsSentTokens    int `json:"t1_tools_sent_tokens"`
	T1ToolsContextTokens int `json:"t1_tools_context_tokens"`
	// T1VisibleDeferred is the part of T1ToolsContextTokens that deferred
	// definitions still cost: OpenAI shows the model the name and
	// description of every deferred function.
	T1VisibleDeferred int `json:"t1_visible_deferred_tokens"`
	// EagerContextTokens is the same adapter's turn-1 context with search
	// off; ShareOfEager = T1ContextTokens / EagerContextTokens.
	EagerContextTokens int     `json:"eager_context_tokens"`
	ShareOfEager       float64 `json:"share_of_eager"`
	SavedTokens        int     `json:"saved_tokens"`
	// Estimate is tokens.EstimateContext for this catalog and resolved
	// mode: the status bar's figure.
	Estimate tokens.Estimate `json:"status_bar_estimate"`

	StableStrict  int `json:"stable_strict"`
	StableMarkers int `json:"stable_ignoring_markers"`
	Compared      int `json:"compared"`
	// FirstDiffMin is the smallest first-differing byte over the
	// conversation; NewAtMin the smallest first-new-message offset.
	FirstDiffMin int    `json:"first_diff_min"`
	Unstable     string `json:"unstable,omitempty"`

	ConvSentTokens    int         `json:"conversation_sent_tokens"`
	ConvContextTokens int         `json:"conversation_context_tokens"`
	Usage             agent.Usage `json:"fake_usage"`
}

// Report is a whole run.
type Report struct {
	Command  string        `json:"command"`
	Duration time.Duration `json:"duration_ns"`
	Catalogs []CatalogInfo `json:"catalogs"`
	Results  []Result      `json:"results"`
	Targets  []Check       `json:"targets"`
}

// CatalogInfo describes a catalog run.
type CatalogInfo struct {
	Name      string   `json:"name"`
	Tools     int      `json:"tools"`
	DefTokens int      `json:"definition_tokens"`
	Generated bool     `json:"generated,omitempty"`
	Targets   []string `json:"discovered"`
	Servers   []string `json:"servers"`
	// NamespaceTokens is what OpenAI would show of the deferred tools if
	// they were grouped in one namespace per server, each described by
	// one sentence: the namespaces' names and descriptions.
	NamespaceTokens int `json:"namespace_tokens"`
}

// Run runs the benchmark.
func Run(ctx context.Context, o Options) (*Report, error) {
	start := time.Now()
	if len(o.Adapters) == 0 {
		o.Adapters = Adapters
	}
	if len(o.Modes) == 0 {
		o.Modes = Modes
	}
	var cats []Catalog
	if o.Catalog != "" {
		c, err := LoadCatalog(o.Catalog)
		if err != nil {
			return nil, err
		}
		cats = append(cats, c)
	} else {
		all, err := LoadCatalogs(o.CatalogDir)
		if err != nil {
			return nil, err
		}
		cats = all
		if o.Generated > 0 {
			for _, c := range all {
				if c.Name == "ALL" {
					cats = append(cats, Generate(fmt.Sprintf("generated-%d", o.Generated), c.Tools, o.Generated))
				}
			}
		}
	}
	rep := &Report{}
	for i := range cats {
		info, results, err := runCatalog(ctx, &cats[i], o)
		if err != nil {
			return nil, err
		}
		rep.Catalogs = append(rep.Catalogs, info)
		rep.Results = append(rep.Results, results...)
	}
	rep.Targets = checkTargets(rep)
	rep.Duration = time.Since(start)
	return rep, nil
}

func runCatalog(ctx context.Context, cat *Catalog, o Options) (CatalogInfo, []Result, error) {
	var defs []tokens.Def
	for _, t := range cat.Tools {
		defs = append(defs, tokens.Def{Name: t.Name, Description: t.Description, Schema: t.Schema})
	}
	info := CatalogInfo{Name: cat.Name, Tools: len(cat.Tools), Generated: cat.Generated}
	for _, t := range cat.Targets() {
		info.Targets = append(info.Targets, t.Name+" ("+t.Query+")")
	}
	seen := map[string]bool{}
	for _, t := range cat.Tools {
		if !seen[t.Server] {
			seen[t.Server] = true
			info.Servers = append(info.Servers, t.Server)
			info.NamespaceTokens += tokens.CountCached(t.Server + ": Tools of the " + t.Server + " MCP server.\n")
		}
	}
	// The status bar's method, once per catalog: its native and client
	// figures are the same, and off saves nothing.
	var est *tokens.Estimate
	estimate := func(mode agent.SearchMode) tokens.Estimate {
		if mode == agent.SearchOff {
			e := tokens.Estimate{}
			if est != nil {
				e.Eager, e.Context = est.Eager, est.Eager
			}
			return e
		}
		if est == nil {
			e := tokens.EstimateContext(nil, defs, string(mode))
			est = &e
		}
		return *est
	}
	var out []Result
	for _, a := range o.Adapters {
		var off *Result
		first := len(out)
		for _, m := range o.Modes {
			conv, err := Converse(ctx, cat, a, m)
			if err != nil {
				return info, nil, err
			}
			reqs, bodies, err := analyze(conv)
			if err != nil {
				return info, nil, fmt.Errorf("%s %s %s: %w", cat.Name, a, m, err)
			}
			r := summarize(conv, reqs, bodies)
			r.Tools = len(cat.Tools)
			r.Estimate = estimate(conv.Resolved)
			out = append(out, r)
			if m == agent.SearchOff {
				off = &out[len(out)-1]
			}
		}
		if off != nil {
			for i := first; i < len(out); i++ {
				r := &out[i]
				r.EagerContextTokens = off.T1ContextTokens
				r.ShareOfEager = float64(r.T1ContextTokens) / float64(off.T1ContextTokens)
				r.SavedTokens = off.T1ContextTokens - r.T1ContextTokens
			}
		}
		if off != nil && info.DefTokens == 0 {
			info.DefTokens = estimate(agent.SearchNative).Eager
		}
	}
	return info, out, nil
}

func summarize(c *Conversation, reqs []Request, bodies []*body) Result {
	r := Result{Catalog: c.Catalog, Adapter: c.Adapter, Model: Models[c.Adapter], Mode: c.Mode, Resolved: c.Resolved, Requests: reqs, FirstDiffMin: -1}
	if len(reqs) == 0 {
		return r
	}
	t1 := bodies[0]
	r.T1Bytes = reqs[0].Bytes
	r.T1SentTokens = count(t1.raw)
	r.T1ContextTokens = count(t1.contextBody()) + t1.visible + t1.referencedTokens(t1.references())
	if tr := t1.toolsRaw(); tr != nil {
		r.T1ToolsSentTokens = count(tr)
		r.T1ToolsContextTokens = count(t1.contextTools()) + t1.visible
		r.T1VisibleDeferred = t1.visible
	}
	for i, q := range reqs {
		r.ConvSentTokens += q.SentTokens
		r.ConvContextTokens += q.ContextTokens
		r.Usage.Add(q.Usage)
		if i == 0 {
			continue
		}
		r.Compared++
		if q.Stable {
			r.StableStrict++
		}
		if q.StableIgnoringMarkers {
			r.StableMarkers++
		} else if r.Unstable == "" {
			r.Unstable = fmt.Sprintf("request %d: %s", i+1, q.Why)
		}
		if r.FirstDiffMin < 0 || q.FirstDiff < r.FirstDiffMin {
			r.FirstDiffMin = q.FirstDiff
		}
	}
	if r.Unstable == "" && r.StableStrict < r.Compared {
		for i, q := range reqs {
			if i > 0 && !q.Stable {
				r.Unstable = fmt.Sprintf("cache markers only; first at request %d: %s", i+1, q.Why)
				break
			}
		}
	}
	return r
}

// Check is one target and whether the run met it.
type Check struct {
	Target string `json:"target"`
	Met    bool   `json:"met"`
	Detail string `json:"detail"`
}

// MaxShare is the turn-1 target: context at most 5% of eager.
const MaxShare = 0.05

func checkTargets(rep *Report) []Check {
	var out []Check
	for _, ci := range rep.Catalogs {
		if ci.Name != "ALL" && !ci.Generated {
			continue
		}
		c := Check{Target: fmt.Sprintf("%s (%d tools): turn-1 context ≤ 5%% of eager with every tool deferred", ci.Name, ci.Tools), Met: true}
		for _, r := range rep.Results {
			if r.Catalog != ci.Name || r.Mode == agent.SearchOff || r.EagerContextTokens == 0 {
				continue
			}
			ok := r.ShareOfEager <= MaxShare
			c.Met = c.Met && ok
			c.Detail += fmt.Sprintf("%s %s: %.2f%%%s; ", r.Adapter, modeLabel(r), 100*r.ShareOfEager, mark(ok))
		}
		out = append(out, c)
	}
	strict, markers, runs := 0, 0, 0
	var bad []string
	for _, r := range rep.Results {
		runs++
		if r.StableStrict == r.Compared {
			strict++
		}
		if r.StableMarkers == r.Compared {
			markers++
		} else {
			bad = append(bad, fmt.Sprintf("%s %s %s: %s", r.Catalog, r.Adapter, modeLabel(r), r.Unstable))
		}
	}
	c := Check{Target: "prefix stable on 100% of requests, every catalog, adapter and mode", Met: markers == runs,
		Detail: fmt.Sprintf("%d/%d runs stable on every request (cache_control markers aside); %d/%d byte for byte", markers, runs, strict, runs)}
	for _, b := range bad {
		c.Detail += "; " + b
	}
	return append(out, c)
}

func modeLabel(r Result) string {
	if r.Mode == r.Resolved {
		return string(r.Mode)
	}
	return string(r.Mode) + "→" + string(r.Resolved)
}

func mark(ok bool) string {
	if ok {
		return ""
	}
	return " (MISSED)"
}

// DefaultCatalogDir is ../shared/catalogs from the module root.
func DefaultCatalogDir(root string) string { return filepath.Join(root, "..", "shared", "catalogs") }
