package cmd

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/demo"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/pricing"
	"github.com/agent-dev/agent/store"
	"github.com/agent-dev/agent/themes"
	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tools/tokens"
	"github.com/agent-dev/agent/tui"
)

func runTUI(ctx context.Context, g *Globals) error {
	// Checked before any server starts or any session is created.
	if f, ok := g.Stdout.(*os.File); !ok || !isTerminal(f) {
		return usagef("the terminal UI needs a terminal on stdout: run agent in one, or use -p PROMPT to print one answer")
	}
	if _, err := themes.Get(g.Config.Theme); err != nil {
		return &UsageError{err}
	}
	b := &tuiBackend{g: g, approvals: make(chan tui.ApprovalRequest), always: map[string]bool{}}
	g.interactive = true
	rt, err := buildRuntime(ctx, g, b)
	if err != nil {
		return err
	}
	defer rt.Close()
	b.rt = rt
	opts := tui.Options{Theme: g.Config.Theme, NoColor: os.Getenv("NO_COLOR") != ""}
	if g.Resume != "" || g.Continue {
		opts.History = rt.Session.Messages()
	}
	if g.Demo {
		opts.Suggestions = demo.Prompts
	}
	// Startup warnings go to the chat once, not to the status bar.
	opts.Warnings = append(append([]string(nil), rt.Warnings...), b.newNotices()...)
	opts.AltScreen = g.AltScreen
	opts.Alerts = rt.Alerts
	b.loadSpend(ctx, rt.Store.ID())
	err = tui.Run(ctx, b, opts)
	b.leave()
	return err
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// leave drops a session nothing was written to, so opening and quitting
// does not leave an empty session for --continue to pick, and says how to
// come back to one that has messages.
func (b *tuiBackend) leave() {
	s := b.rt.Session
	if s == nil || s.ID == "" {
		return
	}
	if len(s.Messages()) == 0 {
		if b.rt.Store != nil {
			_ = b.rt.Store.Close()
		}
		_, _ = b.rt.DB.Delete(context.Background(), s.ID)
		return
	}
	fmt.Fprintf(b.g.Stderr, "Session %s saved; resume it with: %s\n", s.ID, resumeCommand(b.g, s.ID))
}

// resumeCommand is the command line that comes back to a session: the
// flags that say where its servers and database are, which the session
// itself cannot store (a config file path may differ per shell).
func resumeCommand(g *Globals, id string) string {
	args := []string{"agent", "--resume", id}
	if g.DBPath != "" {
		args = append(args, "--db", shellQuote(g.DBPath))
	}
	if g.MCPConfig != "" {
		args = append(args, "--mcp-config", shellQuote(g.MCPConfig))
	}
	for _, m := range g.MCP {
		args = append(args, "--mcp", shellQuote(m))
	}
	switch g.Defer {
	case "", "false":
	case "true":
		args = append(args, "--defer")
	default:
		args = append(args, "--defer="+g.Defer)
	}
	return strings.Join(args, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '=' || r == ',' || r == '@' || r == '+' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tuiBackend is the TUI's view of a wired session.
type tuiBackend struct {
	g         *Globals
	rt        *runtime
	approvals chan tui.ApprovalRequest

	mu     sync.Mutex
	always map[string]bool
	// noticed is how many of rt.Notices were shown already.
	noticed int
	// turning is set while a turn runs: the tool set stays as it is.
	turning bool
	// syncMu serialises MCP syncs (before a turn, and while idle).
	syncMu sync.Mutex
	// spend is the session's usage and cost, stored requests included.
	spend struct {
		usage, last agent.Usage
		requests    int
		cost        float64
		unpriced    bool
	}
	saved struct {
		version uint64
		mode    string
		value   int
	}
}

var (
	_ tui.Backend        = (*tuiBackend)(nil)
	_ tui.Refresher      = (*tuiBackend)(nil)
	_ tui.ModelLister    = (*tuiBackend)(nil)
	_ tui.SessionDeleter = (*tuiBackend)(nil)
)
var _ agent.Approver = (*tuiBackend)(nil)

func (b *tuiBackend) Send(ctx context.Context, text string) <-chan agent.Event {
	var notes []string
	b.mu.Lock()
	b.turning = true
	b.mu.Unlock()
	if changed := b.syncTools(); len(changed) > 0 {
		notes = append(notes, "tools of "+strings.Join(changed, ", ")+" changed; the new list applies from this turn")
	}
	// What MCP servers reported since the last turn is said in the chat.
	notes = append(b.newNotices(), notes...)
	if !b.rt.approvalChecked {
		// Servers started in the background: the patterns are checked
		// once every server has listed its tools.
		if w, ok := b.rt.unmatchedApprovals(); ok {
			notes = append(notes, w...)
			b.rt.approvalChecked = true
		}
	}
	in := b.rt.Session.Send(ctx, text)
	out := make(chan agent.Event, cap(in)+len(notes))
	for _, n := range notes {
		out <- agent.Event{Type: agent.EventWarning, Text: n}
	}
	go func() {
		defer close(out)
		defer func() {
			b.mu.Lock()
			b.turning = false
			b.mu.Unlock()
		}()
		for ev := range in {
			switch ev.Type {
			case agent.EventError:
				ev.Err = withConnHint(withSearchHint(ev.Err, b.rt.Session))
			case agent.EventUsage:
				if ev.Usage != nil {
					b.spent(b.rt.ProviderLabel, b.rt.Session.Model, *ev.Usage)
				}
			}
			out <- ev
		}
	}()
	return out
}

// syncTools applies the tool list changes of MCP servers (a server that
// finished starting in the background, tools/list_changed). Tool list
// changes take effect at turn boundaries only.
func (b *tuiBackend) syncTools() []string {
	if b.rt.MCP == nil {
		return nil
	}
	b.syncMu.Lock()
	defer b.syncMu.Unlock()
	changed, err := b.rt.MCP.Sync()
	if err != nil {
		return nil
	}
	return changed
}

// Refresh runs between turns: servers that came up since are added, and
// what they reported is said.
func (b *tuiBackend) Refresh() []string {
	b.mu.Lock()
	turning := b.turning
	b.mu.Unlock()
	if turning {
		return nil
	}
	var notes []string
	if changed := b.syncTools(); len(changed) > 0 {
		notes = append(notes, "tools of "+strings.Join(changed, ", ")+" are ready")
	}
	return append(notes, b.newNotices()...)
}

// newNotices returns the MCP notices not shown yet.
func (b *tuiBackend) newNotices() []string {
	b.rt.mu.Lock()
	defer b.rt.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	out := append([]string(nil), b.rt.Notices[b.noticed:]...)
	b.noticed = len(b.rt.Notices)
	return out
}

// spent adds one request's usage and cost to the session's figures.
func (b *tuiBackend) spent(provider, model string, u agent.Usage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	sp := &b.spend
	sp.usage.Add(u)
	sp.last = u
	sp.requests++
	if p, ok := pricing.Lookup(provider, model); ok {
		sp.cost += p.Cost(priced(u))
	} else {
		sp.unpriced = true
	}
}

func priced(u agent.Usage) pricing.Usage {
	return pricing.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens}
}

// loadSpend starts the figures from the session's stored requests, so a
// resumed session's total does not restart at zero.
func (b *tuiBackend) loadSpend(ctx context.Context, id string) {
	b.mu.Lock()
	b.spend = struct {
		usage, last agent.Usage
		requests    int
		cost        float64
		unpriced    bool
	}{}
	b.mu.Unlock()
	if id == "" {
		return
	}
	e, err := b.rt.DB.Export(ctx, id)
	if err != nil {
		return
	}
	for _, r := range e.Requests {
		b.spent(r.Provider, r.Model, agent.Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
			CacheReadTokens: r.CacheRead, CacheWriteTokens: r.CacheWrite, ServerToolUses: r.ServerToolUses})
	}
}

// Approve blocks the tool call until the user answers in the TUI.
func (b *tuiBackend) Approve(ctx context.Context, call agent.ToolEvent) (bool, error) {
	b.mu.Lock()
	ok := b.always[call.Name]
	b.mu.Unlock()
	if ok {
		return true, nil
	}
	answer := make(chan tui.Decision, 1)
	req := tui.ApprovalRequest{Tool: call, Reply: func(d tui.Decision) { answer <- d }}
	select {
	case b.approvals <- req:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	select {
	case d := <-answer:
		if d == tui.AllowAlways {
			b.mu.Lock()
			b.always[call.Name] = true
			b.mu.Unlock()
		}
		return d != tui.Deny, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

func (b *tuiBackend) Approvals() <-chan tui.ApprovalRequest { return b.approvals }

func (b *tuiBackend) Info() tui.Info {
	s := b.rt.Session
	active, deferred := len(s.Tools.Active()), len(s.Tools.Deferred())
	mode := string(s.Search)
	if resolved := agent.ResolveSearch(s.Provider, s.BuildRequest()); string(resolved) != mode {
		mode += "→" + string(resolved)
	}
	saved := b.tokensSaved()
	price, priced := pricing.Lookup(b.rt.ProviderLabel, s.Model)
	b.mu.Lock()
	sp := b.spend
	b.mu.Unlock()
	return tui.Info{
		Provider: b.rt.ProviderLabel, Model: s.Model, SessionID: s.ID, SearchMode: mode,
		Active: active, Deferred: deferred, TokensSaved: saved, Note: b.rt.Note, Totals: sp.usage,
		Requests: sp.requests, Last: sp.last, ContextWindow: models.Lookup(b.rt.ProviderLabel, s.Model).ContextWindow,
		Cost: sp.cost, CostKnown: !sp.unpriced, Price: price, Priced: priced,
	}
}

// tokensSaved uses the benchmark's method (tokens.EstimateContext), cached
// per catalog version and discoveries since counting hundreds of schemas
// takes a while.
func (b *tuiBackend) tokensSaved() int {
	s := b.rt.Session
	mode := string(agent.ResolveSearch(s.Provider, s.BuildRequest()))
	v := s.Tools.Version()
	found := len(s.Discovered())
	mode += fmt.Sprint(found)
	b.mu.Lock()
	if b.saved.version == v && b.saved.mode == mode && v != 0 {
		defer b.mu.Unlock()
		return b.saved.value
	}
	b.mu.Unlock()
	var active, deferred []tokens.Def
	for _, t := range s.Tools.Active() {
		active = append(active, tokens.Def{Name: t.Name, Description: t.Description, Schema: t.Schema, Tokens: t.Tokens})
	}
	for _, t := range s.Tools.Deferred() {
		deferred = append(deferred, tokens.Def{Name: t.Name, Description: t.Description, Schema: t.Schema, Tokens: t.Tokens})
	}
	saved := tokens.EstimateContext(active, deferred, string(agent.ResolveSearch(s.Provider, s.BuildRequest()))).Saved
	b.mu.Lock()
	b.saved.version, b.saved.mode, b.saved.value = v, mode, saved
	b.mu.Unlock()
	return saved
}

func (b *tuiBackend) Tools() []tui.ToolInfo {
	s := b.rt.Session.Tools
	var out []tui.ToolInfo
	for _, t := range s.All() {
		out = append(out, tui.ToolInfo{Name: t.Name, Server: t.Server, Description: t.Description, Deferred: s.IsDeferred(t.Name)})
	}
	return out
}

func (b *tuiBackend) Search(ctx context.Context, query string) ([]tui.ToolInfo, error) {
	// The session's own index: built once per catalog change, as the
	// model's searches use it.
	var idx *search.Index
	if s, ok := b.rt.Session.Searcher.(*search.Searcher); ok {
		idx = s.Index()
	} else {
		idx = search.New(search.FromTools(b.rt.Session.Tools.Deferred()))
	}
	hits, err := idx.Search(query, search.Options{Limit: 10})
	if err != nil {
		return nil, err
	}
	var out []tui.ToolInfo
	for _, h := range hits {
		out = append(out, tui.ToolInfo{Name: h.Name, Server: h.Server, Description: h.Description, Deferred: true})
	}
	return out, nil
}

// SetModel switches the model: "NAME" on the same provider, or
// "PROVIDER:NAME" to another one. The tools array is rebuilt for the new
// model and the history replays under the switching rules of each adapter.
func (b *tuiBackend) SetModel(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return fmt.Errorf("name a model: /model NAME or /model PROVIDER:NAME")
	}
	s := b.rt.Session
	if b.rt.Note != "" && s.Provider.Name() == "demo" {
		return fmt.Errorf("the demo has one scripted model; run agent without --demo to switch models")
	}
	prov, model, ok := strings.Cut(name, ":")
	if !ok {
		prov, model = b.rt.ProviderLabel, name
	}
	if err := servedBy(prov, model); err != nil {
		return err
	}
	if err := b.useModel(prov, model); err != nil {
		return err
	}
	meta := b.rt.Store.Meta()
	meta.Provider, meta.API, meta.Model = b.rt.ProviderLabel, s.Provider.API(), s.Model
	return b.rt.Store.UpdateMeta(context.Background(), meta)
}

// useModel points the session at a provider and model, building the
// provider when it is another one. The demo keeps its scripted model.
func (b *tuiBackend) useModel(provider, model string) error {
	s := b.rt.Session
	if b.rt.Note != "" && s.Provider.Name() == "demo" || model == "" {
		return nil
	}
	if provider != "" && provider != b.rt.ProviderLabel {
		p, _, err := newProvider(b.g, provider)
		if err != nil {
			return fmt.Errorf("switch to %s: %w", provider, err)
		}
		s.Provider, b.rt.ProviderLabel = p, provider
	}
	s.Model = model
	return nil
}

// vendorAPI is the model family a provider's own API serves; "" for
// providers that serve many (Chat Completions servers, aggregators).
func vendorAPI(provider string) string {
	switch provider {
	case "anthropic":
		return "anthropic"
	case "openai":
		return "openai"
	case "gemini":
		return "google"
	}
	return ""
}

// servedBy refuses a model the capability table knows belongs to another
// vendor than the provider's own API (gpt-4o on anthropic), naming the
// provider that serves it.
func servedBy(provider, model string) error {
	want := vendorAPI(provider)
	c := models.Lookup(provider, model)
	if want == "" || !c.Known || c.Family == "" || c.Family == want {
		return nil
	}
	other := map[string]string{"anthropic": "anthropic", "openai": "openai", "google": "gemini", "deepseek": "deepseek", "mistral": "mistral"}[c.Family]
	hint := "declare the id in the config's models section if this server does serve it"
	if other != "" {
		hint = "use /model " + other + ":" + model
	}
	return fmt.Errorf("%s is a %s model, which %s does not serve: %s", model, c.Family, provider, hint)
}

// Models lists what /model offers: the priced models of the provider's
// family and the current one, with context window and price.
func (b *tuiBackend) Models(context.Context) ([]tui.ModelInfo, error) {
	label, cur := b.rt.ProviderLabel, b.rt.Session.Model
	names := pricing.Models(label)
	seen := map[string]bool{}
	var out []tui.ModelInfo
	for _, n := range append([]string{cur}, names...) {
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		var detail []string
		if n == cur {
			detail = append(detail, "current")
		}
		if w := models.Lookup(label, n).ContextWindow; w > 0 {
			detail = append(detail, fmt.Sprintf("%dk context", w/1000))
		}
		if p, ok := pricing.Lookup(label, n); ok && (p.Input > 0 || p.Output > 0) {
			detail = append(detail, fmt.Sprintf("$%g in / $%g out per Mtok", p.Input, p.Output))
		}
		out = append(out, tui.ModelInfo{Name: n, Detail: strings.Join(detail, " · ")})
	}
	return out, nil
}

// Delete removes a stored session; the current one cannot be.
func (b *tuiBackend) Delete(ctx context.Context, id string) error {
	if id == b.rt.Session.ID {
		return fmt.Errorf("it is the current session: /new first")
	}
	_, err := b.rt.DB.Delete(ctx, id)
	return err
}

func (b *tuiBackend) Sessions(ctx context.Context) ([]tui.SessionInfo, error) {
	rows, err := b.rt.DB.List(ctx, store.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []tui.SessionInfo
	for _, r := range rows {
		out = append(out, tui.SessionInfo{ID: r.ID, Title: r.Title, Model: r.Provider + "/" + r.Model, Messages: r.Messages, Updated: r.Updated})
	}
	return out, nil
}

func (b *tuiBackend) Resume(ctx context.Context, id string) ([]agent.Message, error) {
	ss, err := b.rt.DB.OpenSession(ctx, id)
	if err != nil {
		return nil, sessionErr(id, err)
	}
	hist, err := ss.Messages(ctx)
	if err != nil {
		_ = ss.Close()
		return nil, err
	}
	// The session continues on its own model, as --resume does.
	meta := ss.Meta()
	if err := b.useModel(meta.Provider, meta.Model); err != nil {
		_ = ss.Close()
		return nil, err
	}
	b.swapStore(ss)
	b.rt.Session.Reset(hist)
	if cp, err := ss.LastCompaction(ctx); err == nil && cp != nil {
		b.rt.Session.SetCompaction(cp) // it sends the compacted form, as --resume does
	}
	b.loadSpend(ctx, ss.ID())
	return hist, nil
}

func (b *tuiBackend) New(ctx context.Context) error {
	meta := b.rt.Store.Meta()
	meta.ID, meta.Title = "", ""
	ss, err := b.rt.DB.Create(ctx, meta)
	if err != nil {
		return err
	}
	b.swapStore(ss)
	b.rt.Session.Reset(nil)
	b.loadSpend(ctx, "")
	return nil
}

func (b *tuiBackend) swapStore(ss *store.Session) {
	old := b.rt.Store
	b.rt.Store = ss
	b.rt.closers = append(b.rt.closers, func() { _ = ss.Close() })
	b.rt.Session.ID = ss.ID()
	b.rt.Session.Store = hashRecorder{Session: ss, rt: b.rt}
	if old != nil && old != ss {
		_ = old.Close()
	}
}
