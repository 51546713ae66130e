package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/internal/testgate"
	"github.com/agent-dev/agent/tools"
)

// memCache is a Cache in memory.
type memCache struct {
	mu      sync.Mutex
	entries map[string]tools.CatalogEntry
	saves   int
}

func newMemCache() *memCache { return &memCache{entries: map[string]tools.CatalogEntry{}} }

func (c *memCache) LoadCatalog(_ context.Context, server, hash string) (tools.CatalogEntry, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[server+"\x00"+hash]
	return e, ok, nil
}

func (c *memCache) SaveCatalog(_ context.Context, e tools.CatalogEntry) error {
	// Kept as a store keeps it: the bytes, as LoadCatalog returns them.
	b, err := e.ToolsBytes()
	if err != nil {
		return err
	}
	e.Tools, e.WriteTools, e.ToolsSize = b, nil, 0
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[e.Server+"\x00"+e.ConfigHash] = e
	c.saves++
	return nil
}

func (c *memCache) only(t *testing.T) tools.CatalogEntry {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) != 1 {
		t.Fatalf("cache has %d entries, want 1", len(c.entries))
	}
	for _, e := range c.entries {
		return e
	}
	panic("unreachable")
}

// gatedServer is the edge server that starts only once its gate opens.
func gatedServer(t *testing.T, name string) (cfg config.MCPServer, gate *testgate.Gate) {
	gate = testgate.New(t)
	cfg = testServerConfig(t, name, "gated")
	cfg.Env["AGENT_MCP_TEST_GATE"] = gate.Addr()
	return cfg, gate
}

// fillCache runs a manager on cfg until its tools are listed, so the cache
// holds its list.
func fillCache(t *testing.T, cache Cache, cfg config.MCPServer) {
	t.Helper()
	m, _, errs := startManager(t, Options{Cache: cache}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	m.Close()
}

func TestCacheSlowServerDoesNotDelayStart(t *testing.T) {
	t.Parallel()
	cache := newMemCache()
	cfg, gate := gatedServer(t, "edge")
	gate.Open()
	fillCache(t, cache, cfg)
	e := cache.only(t)
	listHash, cts, err := decodeCatalog(e.Tools)
	if err != nil {
		t.Fatal(err)
	}
	if len(cts) != len(edgeTools) || len(listHash) != 64 || e.ServerName != "edge" || e.ServerVersion != "1.0.0" ||
		e.Instructions != "Edge cases for the agent's MCP client." || e.ConfigHash != ConfigHash(cfg, "") {
		t.Fatalf("cached entry: %+v", e)
	}
	for _, ct := range cts {
		// Token counts are left for when something asks (SaveTokens): a
		// first run does not load the tokenizer.
		if ct.Tokens != 0 || !ct.Checked {
			t.Fatalf("%s cached with a token count or without its schema check: %+v", ct.Name, ct)
		}
	}
	if got := string(cts[slices.IndexFunc(cts, func(c rawTool) bool { return c.Name == "raw_schema" })].Schema); got != rawSchema {
		t.Fatalf("cached schema %s", got)
	}

	// The gate is closed again: the server now takes as long as the test
	// wants to start. Start must not wait for it. Eager: it starts in the
	// background at launch (the default, lazy, is TestLazyServer...).
	gate.Shut()
	cfg.Start = config.StartEager
	m, ev, errs := startManager(t, Options{Cache: cache}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	st := m.Status()[0]
	if st.State != StateStarting || !st.Cached || st.Tools != len(edgeTools) {
		t.Fatalf("status right after Start: %+v", st)
	}
	set := tools.NewSet()
	if err := m.Register(set, true); err != nil {
		t.Fatal(err)
	}
	if got := len(set.Deferred()); got != len(edgeTools) {
		t.Fatalf("%d tools registered from the cache, want %d", got, len(edgeTools))
	}
	if tl, _ := set.Lookup("edge__echo"); tl.Tokens != 0 || !tl.SchemaChecked || tl.ServerDescription != "Edge cases for the agent's MCP client." {
		t.Fatalf("cached tool: %+v", tl)
	}
	if ref, ok := m.Lookup("edge__raw_schema"); !ok || ref.Tool != "raw_schema" {
		t.Fatalf("lookup: %+v %v", ref, ok)
	}

	// A call waits for its own server, which comes up when the gate opens.
	type res struct {
		r   tools.Result
		err error
	}
	got := make(chan res, 1)
	go func() {
		tl, _ := set.Lookup("edge__echo")
		r, err := tl.Exec(t.Context(), json.RawMessage(`{"message":"hi"}`))
		got <- res{r, err}
	}()
	select {
	case r := <-got:
		t.Fatalf("the call returned before its server started: %+v", r)
	default:
	}
	gate.Open()
	var r res
	select {
	case r = <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("the call never returned")
	}
	if r.err != nil || r.r.IsError || r.r.Text != "echo: hi" {
		t.Fatalf("call after start: %+v", r)
	}
	if err := m.WaitStarted(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := m.Status()[0]; st.State != StateRunning || st.Cached {
		t.Fatalf("status once up: %+v", st)
	}
	// The server's own list keeps the cached checks of its unchanged tools
	// (and their counts: TestSaveTokensWritesCountsToTheCache).
	for _, tl := range m.Tools(false) {
		if !tl.SchemaChecked {
			t.Fatalf("%s lost its cached schema check once listed", tl.Name)
		}
	}
	// The same list: nothing changes, nothing is written again.
	if changed, _ := m.Sync(); len(changed) != 0 {
		t.Fatalf("unchanged server reported changed: %v", changed)
	}
	ev.mu.Lock()
	for _, e := range ev.all {
		if e.Kind == EventToolsChanged || e.Kind == EventWarning {
			t.Errorf("unexpected event %+v", e)
		}
	}
	ev.mu.Unlock()
	m.Close()
	if cache.saves != 1 {
		t.Fatalf("%d cache writes, want 1 (the unchanged list is not written again)", cache.saves)
	}
}

func TestCacheChangedServerAppliesAtNextSync(t *testing.T) {
	t.Parallel()
	cache := newMemCache()
	cfg, gate := gatedServer(t, "edge")
	gate.Open()
	staleCache(t, cache, cfg)

	// The server lists only once the cached list is registered: a server
	// that came up first would have its own list registered, with no
	// change to announce (no CacheMiss), as a session that registers late
	// should.
	gate.Shut()
	cfg.Start = config.StartEager // listed at launch, not at a first call
	m, ev, errs := startManager(t, Options{Cache: cache}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	if _, ok := set.Lookup("edge__gone"); !ok {
		t.Fatal("the cached list was not registered")
	}
	gate.Open()
	changed := ev.wait(t, "tools_changed", func(e Event) bool { return e.Kind == EventToolsChanged })
	if !slices.Equal(changed.Added, []string{"edge__structured"}) || !slices.Equal(changed.Removed, []string{"edge__gone"}) ||
		!strings.Contains(changed.Text, "cached list") || !changed.CacheMiss {
		t.Fatalf("event: %+v", changed)
	}
	// Until the turn boundary the set is unchanged.
	if _, ok := set.Lookup("edge__gone"); !ok {
		t.Fatal("the change applied before Sync")
	}
	names, err := m.Sync()
	if err != nil || !slices.Equal(names, []string{"edge"}) {
		t.Fatalf("Sync = %v, %v", names, err)
	}
	if _, ok := set.Lookup("edge__gone"); ok {
		t.Fatal("a dropped tool is still registered after Sync")
	}
	if r := call(t, set, "edge__structured", `{}`); r.IsError {
		t.Fatalf("new tool: %+v", r)
	}
	m.Close()
	// The cache now holds the server's own list.
	_, now, err := decodeCatalog(cache.only(t).Tools)
	if err != nil {
		t.Fatal(err)
	}
	if len(now) != len(edgeTools) || slices.ContainsFunc(now, func(c rawTool) bool { return c.Name == "gone" }) {
		t.Fatalf("cache after the change: %d tools", len(now))
	}
}

func TestCacheFailedServerToolsAreErrors(t *testing.T) {
	t.Parallel()
	cache := newMemCache()
	cfg := testServerConfig(t, "edge", "exit")
	// A list cached when the server still worked (its config unchanged).
	b := encodeCatalog("h", []cachedTool{{Name: "echo", Description: "Echoes", InputSchema: json.RawMessage(`{"type":"object"}`), Tokens: 12}})
	_ = cache.SaveCatalog(t.Context(), tools.CatalogEntry{Server: "edge", ConfigHash: ConfigHash(cfg, ""), Tools: b,
		ListedAt: time.Date(2026, 11, 30, 9, 0, 0, 0, time.Local)})
	cfg.Start = config.StartEager // started at launch, not at a first call
	m, ev, errs := startManager(t, Options{Cache: cache}, cfg)
	if len(errs) > 0 {
		t.Fatalf("a cached server's failure is an event, not a Start error: %v", errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	w := ev.wait(t, "warning", func(e Event) bool { return e.Kind == EventWarning })
	if !strings.Contains(w.Text, "did not start") || !strings.Contains(w.Text, "MISSING_TOKEN") || !strings.Contains(w.Text, "1 cached tools") {
		t.Fatalf("warning: %q", w.Text)
	}
	r := call(t, set, "edge__echo", `{"message":"x"}`)
	if !r.IsError || !strings.Contains(r.Text, "did not start") || !strings.Contains(r.Text, "cached 2026-11-30 09:00") {
		t.Fatalf("call of a failed server's cached tool: %+v", r)
	}
	if st := m.Status()[0]; st.State != StateFailed || !st.Cached {
		t.Fatalf("status: %+v", st)
	}
}

func TestBackgroundStartWithoutCache(t *testing.T) {
	t.Parallel()
	cfg, gate := gatedServer(t, "edge")
	m, ev, errs := startManager(t, Options{Background: true}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	if n := len(set.All()); n != 0 {
		t.Fatalf("%d tools before the server is up", n)
	}
	gate.Open()
	up := ev.wait(t, "tools_changed", func(e Event) bool { return e.Kind == EventToolsChanged })
	if !strings.Contains(up.Text, "is up") || up.Tools != len(edgeTools) {
		t.Fatalf("event: %+v", up)
	}
	if names, _ := m.Sync(); !slices.Equal(names, []string{"edge"}) {
		t.Fatalf("Sync = %v", names)
	}
	if r := call(t, set, "edge__echo", `{"message":"up"}`); r.Text != "echo: up" {
		t.Fatalf("call: %+v", r)
	}
}

func TestConfigHash(t *testing.T) {
	a := config.MCPServer{Name: "x", Type: config.MCPStdio, Command: "srv", Args: []string{"/a"}, Env: map[string]string{"K": "1"}}
	b := a
	b.Defer, b.Timeout, b.Description, b.AlwaysLoad = config.DeferSetting{}, time.Minute, "d", []string{"t"}
	if ConfigHash(a, "/w") != ConfigHash(b, "/w") {
		t.Fatal("settings that do not decide the tools changed the hash")
	}
	for _, c := range []func(*config.MCPServer){
		func(s *config.MCPServer) { s.Args = []string{"/b"} },
		func(s *config.MCPServer) { s.Env = map[string]string{"K": "2"} },
		func(s *config.MCPServer) { s.Command = "other" },
		func(s *config.MCPServer) { s.Cwd = "/elsewhere" },
	} {
		d := a
		c(&d)
		if ConfigHash(d, "/w") == ConfigHash(a, "/w") {
			t.Fatalf("changed config %+v kept the hash", d)
		}
	}
	if ConfigHash(a, "/w") == ConfigHash(a, "/v") {
		t.Fatal("a stdio server's working directory is part of its config")
	}
}

func TestCatalogEncoding(t *testing.T) {
	in := []cachedTool{
		{Name: "a", Description: "Ünïcode \"quoted\"", InputSchema: json.RawMessage(rawSchema), Tokens: 300, Checked: true},
		{Name: "b", InputSchema: json.RawMessage(`{}`)},
	}
	b := encodeCatalog("abc", in)
	h, out, err := decodeCatalog(b)
	if err != nil || h != "abc" || len(out) != 2 {
		t.Fatalf("%q %v %v", h, out, err)
	}
	for i, o := range out {
		if o.Name != in[i].Name || o.Description != in[i].Description || string(o.Schema) != string(in[i].InputSchema) || o.Tokens != in[i].Tokens || o.Checked != in[i].Checked {
			t.Fatalf("tool %d: %+v", i, o)
		}
	}
	for n := 0; n < len(b); n++ {
		if _, _, err := decodeCatalog(b[:n]); err == nil {
			t.Fatalf("a catalog cut at %d bytes decoded", n)
		}
	}
	if _, _, err := decodeCatalog([]byte(`[{"name":"x"}]`)); err == nil {
		t.Fatal("a JSON entry of an older build decoded")
	}
}

// A catalog of an agent that did not read _meta.ui.visibility (format 4)
// is not used: its tools' meta lacks appOnly, and a server whose list is
// unchanged keeps its cached tools (listTools), so server-pdf's app-only
// tools were offered from such a cache until the server's list changed.
func TestCatalogOfAnOlderMetaIsNotUsed(t *testing.T) {
	b := encodeCatalog("abc", []cachedTool{{Name: "poll", InputSchema: json.RawMessage(`{}`)}})
	old := append([]byte("agent-mcp-catalog-4\n"), b[len(catalogMagic):]...)
	if _, _, err := decodeCatalog(old); err == nil {
		t.Fatal("a format-4 catalog decoded")
	}
}

// With DeferStart a server with a cached list starts only once
// StartDeferred is called, or when one of its tools is called.
func TestDeferredStart(t *testing.T) {
	t.Parallel()
	cache := newMemCache()
	cfg := testServerConfig(t, "edge", "tools")
	fillCache(t, cache, cfg)
	for _, viaCall := range []bool{false, true} {
		m, _, errs := startManager(t, Options{Cache: cache, DeferStart: true}, cfg)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		set := tools.NewSet()
		if err := m.Register(set, false); err != nil {
			t.Fatal(err)
		}
		if viaCall {
			if r := call(t, set, "edge__echo", `{"message":"x"}`); r.Text != "echo: x" {
				t.Fatalf("call before StartDeferred: %+v", r)
			}
		} else {
			m.StartDeferred()
		}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		if err := m.WaitStarted(ctx); err != nil {
			t.Fatalf("viaCall=%v: the server never finished starting: %v", viaCall, err)
		}
		cancel()
		if st := m.Status()[0]; st.State != StateRunning || st.Cached {
			t.Fatalf("viaCall=%v: %+v", viaCall, st)
		}
		m.Close()
	}
}

// Counts the application makes are written back to the cached list, and a
// later start reads them.
func TestSaveTokensWritesCountsToTheCache(t *testing.T) {
	t.Parallel()
	cache := newMemCache()
	cfg, gate := gatedServer(t, "edge")
	gate.Open()
	fillCache(t, cache, cfg)
	m, _, errs := startManager(t, Options{Cache: cache}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	counts := map[string]int{}
	for i, et := range edgeTools {
		counts[ToolName(cfg.Name, et)] = 10 + i
	}
	m.SaveTokens(counts)
	m.Close()
	_, cts, err := decodeCatalog(cache.only(t).Tools)
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range cts {
		if want := counts[ToolName(cfg.Name, ct.Name)]; ct.Tokens != want || !ct.Checked {
			t.Errorf("%s: cached %d tokens (checked %v), want %d", ct.Name, ct.Tokens, ct.Checked, want)
		}
	}
	// The server's own list keeps the cached counts of its unchanged tools.
	m, _, errs = startManager(t, Options{Cache: cache}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	defer m.Close()
	if err := m.WaitStarted(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, tl := range m.Tools(false) {
		if tl.Tokens != counts[tl.Name] {
			t.Errorf("%s: %d tokens once listed, want the cached %d", tl.Name, tl.Tokens, counts[tl.Name])
		}
	}
}

// A server whose list is cached is not started by Start unless its
// config says "eager": lazy is the default. Its cached tools are
// registered, its status is idle, and the first call of one of them starts
// it; the call waits for it and runs.
func TestLazyServerStartsAtFirstCall(t *testing.T) {
	t.Parallel()
	for _, start := range []string{"", config.StartLazy} {
		cache := newMemCache()
		cfg, gate := gatedServer(t, "edge")
		gate.Open()
		fillCache(t, cache, cfg)
		cfg.Start = start
		m, _, errs := startManager(t, Options{Cache: cache}, cfg)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		set := tools.NewSet()
		if err := m.Register(set, true); err != nil {
			t.Fatal(err)
		}
		if m.conns[0].gateOpen() {
			t.Fatalf("start %q: the server's start was let through before any call", start)
		}
		if st := m.Status()[0]; st.State != StateIdle || !st.Cached || st.Tools != len(edgeTools) {
			t.Fatalf("start %q: status before a call: %+v", start, st)
		}
		tl, _ := set.Lookup("edge__echo")
		r, err := tl.Exec(t.Context(), json.RawMessage(`{"message":"hi"}`))
		if err != nil || r.IsError || r.Text != "echo: hi" {
			t.Fatalf("start %q: first call: %+v %v", start, r, err)
		}
		if st := m.Status()[0]; st.State != StateRunning {
			t.Fatalf("start %q: status after the call: %+v", start, st)
		}
		m.Close()
	}
}

// staleCache fills cache from cfg's server, then rewrites the entry as an
// older list: without "structured", with a tool "gone" the server dropped.
func staleCache(t *testing.T, cache *memCache, cfg config.MCPServer) {
	t.Helper()
	fillCache(t, cache, cfg)
	e := cache.only(t)
	_, list, err := decodeCatalog(e.Tools)
	if err != nil {
		t.Fatal(err)
	}
	var cts []cachedTool
	for _, r := range list {
		if r.Name != "structured" {
			cts = append(cts, cachedTool{Name: r.Name, Description: r.Description, InputSchema: r.Schema, Tokens: r.Tokens})
		}
	}
	cts = append(cts, cachedTool{Name: "gone", Description: "dropped since", InputSchema: json.RawMessage(`{"type":"object"}`), Tokens: 9})
	e.Tools = encodeCatalog("older pages", cts)
	if err := cache.SaveCatalog(t.Context(), e); err != nil {
		t.Fatal(err)
	}
}

// A lazily started server's list is read once it is up: a list that
// changed since the cache applies at the next Sync (the next turn), never
// within the turn that started it; /mcp reconnect (Reconnect) starts an
// idle server the same way a call does.
func TestLazyStartRefreshesTheCatalog(t *testing.T) {
	t.Parallel()
	for _, via := range []string{"call", "reconnect"} {
		cache := newMemCache()
		cfg := testServerConfig(t, "edge", "tools")
		staleCache(t, cache, cfg)
		m, ev, errs := startManager(t, Options{Cache: cache}, cfg)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		set := tools.NewSet()
		if err := m.Register(set, false); err != nil {
			t.Fatal(err)
		}
		if st := m.Status()[0]; st.State != StateIdle {
			t.Fatalf("%s: status before: %+v", via, st)
		}
		if names, _ := m.Sync(); len(names) != 0 {
			t.Fatalf("%s: Sync before the start changed %v", via, names)
		}
		switch via {
		case "call":
			if r := call(t, set, "edge__echo", `{"message":"x"}`); r.Text != "echo: x" {
				t.Fatalf("call: %+v", r)
			}
		case "reconnect":
			if st, err := m.Reconnect(t.Context(), "edge"); err != nil || st.State != StateRunning {
				t.Fatalf("reconnect: %+v %v", st, err)
			}
		}
		changed := ev.wait(t, "tools_changed", func(e Event) bool { return e.Kind == EventToolsChanged })
		if !slices.Equal(changed.Added, []string{"edge__structured"}) || !slices.Equal(changed.Removed, []string{"edge__gone"}) {
			t.Fatalf("%s: event: %+v", via, changed)
		}
		if _, ok := set.Lookup("edge__gone"); !ok {
			t.Fatalf("%s: the change applied before Sync", via)
		}
		names, err := m.Sync()
		if err != nil || !slices.Equal(names, []string{"edge"}) {
			t.Fatalf("%s: Sync = %v, %v", via, names, err)
		}
		if _, ok := set.Lookup("edge__gone"); ok {
			t.Fatalf("%s: a dropped tool is still registered after Sync", via)
		}
		if r := call(t, set, "edge__structured", `{}`); r.IsError {
			t.Fatalf("%s: new tool: %+v", via, r)
		}
		m.Close()
	}
}
