package cmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/demo"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/store"
	"github.com/agent-dev/agent/tools"
	mcptools "github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/search"
)

// buildRuntime wires a session from the resolved flags and config: the
// store (new or resumed session), the provider, the MCP tools with their
// deferral, and the client-side search engine.
func buildRuntime(ctx context.Context, g *Globals, approver agent.Approver) (_ *runtime, err error) {
	rt := &runtime{}
	if g.interactive {
		rt.Alerts = make(chan string, 16)
	}
	defer func() {
		if err != nil {
			rt.Close()
		}
	}()
	db, err := openDB(ctx, g)
	if err != nil {
		return nil, err
	}
	rt.DB = db
	rt.closers = append(rt.closers, func() { _ = db.Close() })

	var resumed *store.Session
	switch {
	case g.Resume != "":
		if resumed, err = db.OpenSession(ctx, g.Resume); err != nil {
			return nil, sessionErr(g.Resume, err)
		}
	case g.Continue:
		if resumed, err = db.Latest(ctx, g.Workdir); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return nil, usagef("no session to continue in %s: start one without --continue", g.Workdir)
			}
			return nil, fmt.Errorf("find the newest session: %w", err)
		}
	}
	if resumed != nil {
		rt.closers = append(rt.closers, func() { _ = resumed.Close() })
		// The session's agent profile comes back first; what was stored
		// (what was sent) then wins over it.
		if st := resumed.Meta().Settings; g.Agent == "" && st.Agent != "" {
			if err := useProfile(g, st.Agent); err != nil {
				rt.Warnings = append(rt.Warnings, fmt.Sprintf("this session used the agent profile %s, which cannot be loaded now (%v): its tool list and approvals are not applied", st.Agent, err))
			}
		}
		applyStoredSettings(g, resumed.Meta())
	}
	c := g.Config
	pts, err := parseProviderTools(c.ProviderTools)
	if err != nil {
		return nil, err
	}
	var kit *demo.Kit
	var p agent.Provider
	var defModel string
	if g.Demo {
		// The demo is a demo of the program: only --demo reaches it.
		if kit, err = demo.New(demo.Options{}); err != nil {
			return nil, err
		}
		p, defModel, c.Provider, c.Model, c.Search = kit.Provider, kit.Model, "demo", "", "client"
		if c.System == "" {
			c.System = kit.System
		}
		rt.Note = kit.Note
	} else if p, defModel, err = newProvider(g, c.Provider); err != nil {
		return nil, err
	}
	if err := validateProviderTools(p, pts); err != nil {
		return nil, err
	}
	model := c.Model
	if model == "" {
		model = defModel
	}
	mode, err := agent.ParseSearchMode(c.Search)
	if err != nil {
		return nil, &UsageError{err}
	}
	approval, needsApproval, err := approvalPolicy(c.RequireApproval)
	if err != nil {
		return nil, err
	}
	s := &agent.Session{
		Provider: p, Model: model, System: c.System, Tools: tools.NewSet(), Search: mode,
		SearchAlgo: c.SearchAlgo, ProviderTools: pts, MaxSteps: c.MaxSteps, MaxTokens: c.MaxTokens,
		NoStream: g.NoStream, Approver: approver, NeedsApproval: needsApproval,
		MaxRetryWait: time.Duration(c.MaxRetryWait),
		AutoCompact:  c.CompactShare(),
		Effort:       c.Effort,
	}
	if table, err := c.ModelTable(); err == nil {
		s.ContextWindow = table.Lookup(c.Provider, model).ContextWindow
	}
	if s.ContextWindow <= 0 {
		s.ContextWindow = contextWindow(model)
	}
	if c.FallbackModel != "" {
		s.Fallback, s.FallbackModel = p, c.FallbackModel
	}
	rt.Session = s
	rt.ProviderLabel = c.Provider
	searcher := search.NewSearcher(s.Tools)
	s.Searcher = searcher
	s.Learner = learnFromStore(ctx, g, db, searcher, func() string { return s.ID })

	if kit != nil {
		if err := s.Tools.Add(nil, kit.Tools...); err != nil {
			return nil, err
		}
	} else {
		rt.named = append([]string(nil), g.MCP...)
		mgr, err := attachMCP(ctx, g, rt, rt.onMCPEvent)
		if err != nil {
			return nil, err
		}
		rt.MCP = mgr
		rt.applyAutoDefer(g, model)
	}
	rt.approval = approval
	if w, ok := rt.unmatchedApprovals(); ok {
		rt.Warnings = append(rt.Warnings, w...)
		rt.approvalChecked = true
	}

	meta := store.SessionMeta{
		Workdir: g.Workdir, Provider: c.Provider, API: p.API(), Model: model,
		Settings: store.Settings{
			Search: mode, SearchAlgo: c.SearchAlgo, Defer: g.Defer, MCPServers: g.MCP,
			ProviderTools: pts, System: c.System, MaxTokens: c.MaxTokens, NoStream: g.NoStream,
			FallbackModel: c.FallbackModel, Agent: g.Agent,
		},
	}
	if resumed != nil {
		hist, err := resumed.Messages(ctx)
		if err != nil {
			return nil, fmt.Errorf("load session %s: %w", resumed.ID(), err)
		}
		s.History = hist
		// A compacted session sends its compacted form, as before.
		if cp, err := resumed.LastCompaction(ctx); err != nil {
			return nil, fmt.Errorf("load session %s: %w", resumed.ID(), err)
		} else if cp != nil {
			s.SetCompaction(cp)
		}
		old := resumed.Meta()
		meta.ID, meta.Title, meta.Created = old.ID, old.Title, old.Created
		if err := resumed.UpdateMeta(ctx, meta); err != nil {
			return nil, fmt.Errorf("update session %s: %w", resumed.ID(), err)
		}
		rt.Store = resumed
		rt.checkReplay(ctx, resumed)
	} else {
		meta.Title = g.Prompt
		ss, err := db.Create(ctx, meta)
		if err != nil {
			return nil, fmt.Errorf("create session: %w", err)
		}
		rt.closers = append(rt.closers, func() { _ = ss.Close() })
		rt.Store = ss
	}
	s.ID = rt.Store.ID()
	s.Store = hashRecorder{Session: rt.Store, rt: rt}
	return rt, nil
}

func openDB(ctx context.Context, g *Globals) (*store.DB, error) {
	path := g.DBPath
	if path == "" {
		var err error
		if path, err = store.DefaultPath(); err != nil {
			return nil, fmt.Errorf("find the session database: %w (choose one with --db PATH)", err)
		}
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open session database %s: %w", path, err)
	}
	return db, nil
}

func sessionErr(id string, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return usagef("no session %q: list them with agent sessions", id)
	case errors.Is(err, store.ErrAmbiguous):
		return usagef("session ID prefix %q matches several sessions: give more of the ID (agent sessions lists them)", id)
	case errors.Is(err, store.ErrLocked):
		return fmt.Errorf("%w", err)
	}
	return fmt.Errorf("open session %s: %w", id, err)
}

// applyStoredSettings takes a resumed session's settings wherever the user
// gave no flag, so the tools array is rebuilt exactly as it was sent.
func applyStoredSettings(g *Globals, m store.SessionMeta) {
	c := &g.Config
	st := m.Settings
	if m.Provider == "demo" && g.Provider == "" {
		// A demo session resumes in the demo: its scripted model is the only
		// one that can continue it offline.
		g.Demo = true
	}
	if g.Provider == "" && m.Provider != "" {
		c.Provider = m.Provider
		if g.Model == "" {
			c.Model = m.Model
		}
	}
	if g.Model == "" && c.Provider == m.Provider {
		c.Model = m.Model
	}
	if g.Search == "" && st.Search != "" {
		c.Search = string(st.Search)
	}
	if g.SearchAlgo == "" && st.SearchAlgo != "" {
		c.SearchAlgo = st.SearchAlgo
	}
	if g.Defer == "" {
		g.Defer = st.Defer
	}
	if len(g.MCP) == 0 {
		g.MCP = st.MCPServers
	}
	if len(g.ProviderTools) == 0 && len(st.ProviderTools) > 0 {
		c.ProviderTools = nil
		for _, pt := range st.ProviderTools {
			c.ProviderTools = append(c.ProviderTools, providerToolSpec(pt))
		}
	}
	if g.System == "" && st.System != "" {
		c.System = st.System
	}
	if st.MaxTokens > 0 {
		c.MaxTokens = st.MaxTokens
	}
	if g.FallbackModel == "" && st.FallbackModel != "" {
		c.FallbackModel = st.FallbackModel
	}
	g.NoStream = g.NoStream || st.NoStream
}

func providerToolSpec(pt agent.ProviderTool) string {
	if len(pt.Raw) > 0 {
		return string(pt.Raw)
	}
	if len(pt.Options) > 0 {
		return pt.Alias + ":" + string(pt.Options)
	}
	return pt.Alias
}

// checkReplay compares the tools array this resume will send with the one
// sent last; a mismatch (a server's tools changed) costs the prompt cache.
func (rt *runtime) checkReplay(ctx context.Context, ss *store.Session) {
	last, err := ss.LastToolsHash(ctx)
	if err != nil || last == "" {
		return
	}
	rt.ResumeHash = last
	if h := toolsHash(rt.Session); h != "" && h != last {
		rt.Warnings = append(rt.Warnings, "the tools changed since this session's last request (a server's tools differ): the prompt cache will not match on the next request, which costs one uncached read of the prompt")
	}
}

// onMCPEvent turns MCP server events into warnings shown by the front end.
// A server named with --mcp that fails to start is an error, sent to
// Alerts for the TUI to show at once.
func (rt *runtime) onMCPEvent(e mcptools.Event) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if e.Kind == mcptools.EventWarning && rt.Alerts != nil && slices.Contains(rt.named, e.Server) {
		select {
		case rt.Alerts <- e.Text + "; it was named with --mcp, so its tools are missing from this session":
			return
		default:
		}
	}
	if e.Text != "" {
		rt.Notices = append(rt.Notices, e.Text)
	}
}

// applyAutoDefer implements --defer auto: whole servers move to the deferred
// set, biggest first, until the active definitions fit the threshold.
func (rt *runtime) applyAutoDefer(g *Globals, model string) {
	budget := deferBudget(g.Config.DeferThreshold, model)
	set := rt.Session.Tools
	if g.Defer == "auto" {
		keep := map[string]bool{}
		if rt.MCP != nil {
			for _, t := range set.All() {
				if ref, ok := rt.MCP.Lookup(t.Name); ok && rt.alwaysLoad(g, ref) {
					keep[t.Name] = true
				}
			}
		}
		if servers := set.AutoDefer(budget, keep); len(servers) > 0 {
			rt.Notices = append(rt.Notices, fmt.Sprintf("--defer auto: deferred the tools of %s to keep active tools under %d tokens", strings.Join(servers, ", "), budget))
		}
	}
	if cost := set.ActiveCost(); cost > budget {
		rt.Warnings = append(rt.Warnings, fmt.Sprintf("the active tool definitions take about %d tokens, over the %d-token threshold: defer them with --defer (or --defer auto)", cost, budget))
	}
}

func (rt *runtime) alwaysLoad(g *Globals, ref mcptools.ToolRef) bool {
	servers, err := mcpConfigured(g)
	if err != nil {
		return false
	}
	for _, n := range servers[ref.Server].AlwaysLoad {
		if n == ref.Tool {
			return true
		}
	}
	return false
}

// deferBudget is the --defer auto threshold in tokens: a share of the
// model's context window when below 1, else a token count.
func deferBudget(threshold float64, model string) int {
	if threshold <= 0 {
		threshold = 0.1
	}
	if threshold >= 1 {
		return int(threshold)
	}
	return int(threshold * float64(contextWindow(model)))
}

// contextWindow is the model's context window from the built-in models
// table (runtime reads the config's entries too).
func contextWindow(model string) int {
	return models.Lookup("", model).ContextWindow
}

// hashRecorder keeps the last tools hash for the -p output while passing
// every write through to the store.
type hashRecorder struct {
	*store.Session
	rt *runtime
}

func (h hashRecorder) RecordRequest(ctx context.Context, r agent.RequestRecord) error {
	h.rt.mu.Lock()
	h.rt.hash = r.ToolsHash
	h.rt.mu.Unlock()
	return h.Session.RecordRequest(ctx, r)
}
