package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
)

// events collects a manager's events for assertions.
type events struct {
	mu  sync.Mutex
	all []Event
	ch  chan struct{}
}

func newEvents() *events { return &events{ch: make(chan struct{}, 1)} }

func (e *events) add(ev Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
	select {
	case e.ch <- struct{}{}:
	default:
	}
}

// wait returns the first event matching ok, waiting up to a deadline.
func (e *events) wait(t *testing.T, what string, ok func(Event) bool) Event {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		e.mu.Lock()
		for _, ev := range e.all {
			if ok(ev) {
				e.mu.Unlock()
				return ev
			}
		}
		e.mu.Unlock()
		select {
		case <-e.ch:
		case <-deadline:
			t.Fatalf("no %s event; got %+v", what, e.all)
		}
	}
}

func startManager(t *testing.T, opts Options, servers ...config.MCPServer) (*Manager, *events, []error) {
	t.Helper()
	ev := newEvents()
	opts.OnEvent = ev.add
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	m := NewManager(servers, opts)
	t.Cleanup(func() { _ = m.Close() })
	errs := m.Start(t.Context())
	return m, ev, errs
}

// register registers m's tools in a new set, none deferred.
func register(t *testing.T, m *Manager) *tools.Set {
	t.Helper()
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	return set
}

func call(t *testing.T, set *tools.Set, name string, args string) tools.Result {
	t.Helper()
	tool, ok := set.Lookup(name)
	if !ok {
		t.Fatalf("tool %s not registered", name)
	}
	r, err := tool.Exec(t.Context(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func names(ts []tools.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

func TestEdgeServerToolsAndResults(t *testing.T) {
	t.Parallel()
	cfg := testServerConfig(t, "edge", "tools")
	m, _, errs := startManager(t, Options{MaxResultBytes: 100_000}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range edgeTools {
		want = append(want, "edge__"+n)
	}
	// The server pages 3 tools at a time: all 10 mean nextCursor was followed.
	if got := names(set.All()); !slices.Equal(got, want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	for _, tl := range set.All() {
		if tl.Server != "edge" || tl.ServerDescription != "Edge cases for the agent's MCP client." {
			t.Errorf("%s: server %q / %q", tl.Name, tl.Server, tl.ServerDescription)
		}
		if strings.Contains(string(tl.Schema), "data:image") || strings.Contains(tl.Description, "Pretty") {
			t.Errorf("%s carries icons or annotations: %s", tl.Name, tl.Schema)
		}
	}
	raw, _ := set.Lookup("edge__raw_schema")
	if string(raw.Schema) != rawSchema {
		t.Errorf("schema not verbatim:\n got %s\nwant %s", raw.Schema, rawSchema)
	}
	if ref, ok := m.Lookup("edge__raw_schema"); !ok || ref != (ToolRef{Server: "edge", Tool: "raw_schema"}) {
		t.Errorf("Lookup = %+v, %v", ref, ok)
	}

	tests := []struct {
		tool, args string
		check      func(t *testing.T, r tools.Result)
	}{
		{"echo", `{"message":"hi"}`, func(t *testing.T, r tools.Result) {
			if r.Text != "echo: hi" || r.IsError {
				t.Errorf("%+v", r)
			}
		}},
		{"fail", `{}`, func(t *testing.T, r tools.Result) {
			if !r.IsError || r.Text != "the thing is broken" {
				t.Errorf("%+v", r)
			}
		}},
		{"mixed", `{}`, func(t *testing.T, r tools.Result) {
			want := "here you go\n[resource file:///a.txt]\nfile body\n[resource file:///a.bin: application/octet-stream, 300 bytes: binary content not shown]"
			if r.Text != want || len(r.Images) != 1 || r.Images[0].MediaType != "image/png" {
				t.Errorf("got %q %+v, want %q", r.Text, r.Images, want)
			}
		}},
		{"structured", `{}`, func(t *testing.T, r tools.Result) {
			if r.Text != `{"count":3,"items":["a","b"]}` {
				t.Errorf("%q", r.Text)
			}
		}},
		{"big", `{}`, func(t *testing.T, r tools.Result) {
			if len(r.Text) > 100_200 || !strings.HasSuffix(r.Text, "[output truncated: the tool returned 1048576 bytes; only the first 100000 are shown]") {
				t.Errorf("len %d, tail %q", len(r.Text), r.Text[max(0, len(r.Text)-120):])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) { tt.check(t, call(t, set, "edge__"+tt.tool, tt.args)) })
	}
}

func TestCallTimeout(t *testing.T) {
	t.Parallel()
	cfg := testServerConfig(t, "edge", "tools")
	cfg.ToolTimeout = 300 * time.Millisecond
	m, _, errs := startManager(t, Options{}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	if r := call(t, set, "edge__hang", `{}`); !r.IsError || !strings.Contains(r.Text, "did not answer within 300ms and was cancelled") {
		t.Errorf("%+v", r)
	}
	// The server stays usable: the timed-out request was cancelled, not the session.
	if r := call(t, set, "edge__echo", `{"message":"after the hang"}`); r.Text != "echo: after the hang" {
		t.Errorf("server unusable after a timeout: %+v", r)
	}
}

func TestCallCancelledWithTurn(t *testing.T) {
	t.Parallel()
	m, _, errs := startManager(t, Options{}, testServerConfig(t, "edge", "tools"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	tl := m.Tools(false)
	i := slices.IndexFunc(tl, func(x tools.Tool) bool { return x.Name == "edge__hang" })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := tl[i].Exec(ctx, json.RawMessage(`{}`))
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("cancelled call returned no error")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("call not cancelled with its context")
	}
}

func TestListChangedAppliesAtSync(t *testing.T) {
	t.Parallel()
	m, ev, errs := startManager(t, Options{}, testServerConfig(t, "edge", "tools"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, true); err != nil {
		t.Fatal(err)
	}
	if r := call(t, set, "edge__add_tool", `{"name":"late"}`); r.Text != "added late" {
		t.Fatalf("%+v", r)
	}
	got := ev.wait(t, "tools_changed", func(e Event) bool { return e.Kind == EventToolsChanged })
	if got.Server != "edge" || !slices.Equal(got.Added, []string{"edge__late"}) || got.Tools != 11 {
		t.Errorf("event %+v", got)
	}
	if _, ok := set.Lookup("edge__late"); ok {
		t.Fatal("the change must wait for the next turn (Sync)")
	}
	changed, err := m.Sync()
	if err != nil || !slices.Equal(changed, []string{"edge"}) {
		t.Fatalf("Sync = %v, %v", changed, err)
	}
	if !set.IsDeferred("edge__late") {
		t.Error("a tool added to a --defer server must be deferred")
	}
	if r := call(t, set, "edge__late", `{}`); r.Text != "I am late" {
		t.Errorf("%+v", r)
	}
}

func TestCrashedServerRestartsOnNextCall(t *testing.T) {
	t.Parallel()
	m, ev, errs := startManager(t, Options{}, testServerConfig(t, "edge", "tools"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	r := call(t, set, "edge__crash", `{}`)
	if !r.IsError || !strings.Contains(r.Text, "MCP server edge is not running") || !strings.Contains(r.Text, "it will be restarted on the next call") {
		t.Fatalf("crash result: %+v", r)
	}
	down := ev.wait(t, "server_down", func(e Event) bool { return e.Kind == EventServerDown })
	if !strings.Contains(down.Text, "panic: crash tool called") {
		t.Errorf("down event should quote the server's stderr: %q", down.Text)
	}
	if st := m.Status()[0]; st.State != StateDown {
		t.Errorf("status after crash: %+v", st)
	}
	if r := call(t, set, "edge__echo", `{"message":"back"}`); r.Text != "echo: back" || r.IsError {
		t.Fatalf("after restart: %+v", r)
	}
	ev.wait(t, "server_up", func(e Event) bool { return e.Kind == EventServerUp && e.Tools == 10 })
	if st := m.Status()[0]; st.State != StateRunning {
		t.Errorf("status after restart: %+v", st)
	}
	// The restarted server lists the same tools: nothing changed, so
	// nothing is said ("tools of edge changed" was, at the next turn).
	if changed, err := m.Sync(); err != nil || len(changed) != 0 {
		t.Errorf("Sync after a restart with the same tools: %q, %v; want nothing", changed, err)
	}
}

func TestStartFailuresAreWarnings(t *testing.T) {
	t.Parallel()
	silent := testServerConfig(t, "silent", "silent")
	silent.Timeout = 500 * time.Millisecond
	good := testServerConfig(t, "good", "tools")
	servers := []config.MCPServer{
		silent,
		testServerConfig(t, "exits", "exit"),
		{Name: "nocmd", Type: config.MCPStdio, Command: "agent-no-such-mcp-server"},
		{Name: "refused", Type: config.MCPHTTP, URL: "http://127.0.0.1:1/mcp"},
		{Name: "off", Type: config.MCPStdio, Command: "x", Disabled: true, Source: "cfg.json"},
		{Name: "github", Type: config.MCPHTTP, URL: "https://example.invalid/", Unavailable: "set GITHUB_TOKEN"},
		good,
	}
	m, _, errs := startManager(t, Options{StartTimeout: 20 * time.Second}, servers...)
	want := map[string]string{
		"silent":  "MCP server silent did not start: no answer within 500ms",
		"exits":   "fatal: MISSING_TOKEN is not set",
		"nocmd":   `command "agent-no-such-mcp-server" not found`,
		"refused": "MCP server refused did not start",
		"off":     "MCP server off is disabled in cfg.json",
		"github":  "MCP server github: set GITHUB_TOKEN",
	}
	if len(errs) != len(want) {
		t.Errorf("%d warnings, want %d: %v", len(errs), len(want), errs)
	}
	for _, err := range errs {
		ok := false
		for _, w := range want {
			ok = ok || strings.Contains(err.Error(), w)
		}
		if !ok || strings.Contains(err.Error(), "\n") {
			t.Errorf("unexpected warning %q", err)
		}
	}
	states := map[string]State{}
	for _, s := range m.Status() {
		states[s.Name] = s.State
	}
	wantStates := map[string]State{"silent": StateFailed, "exits": StateFailed, "nocmd": StateFailed, "refused": StateFailed,
		"off": StateDisabled, "github": StateFailed, "good": StateRunning}
	for n, s := range wantStates {
		if states[n] != s {
			t.Errorf("%s: state %s, want %s", n, states[n], s)
		}
	}
	if got := len(m.Tools(false)); got != len(edgeTools) {
		t.Errorf("the good server's tools: %d", got)
	}
}

func TestRegisterDeferral(t *testing.T) {
	t.Parallel()
	a := testServerConfig(t, "a", "tools")
	a.Defer = config.DeferSetting{Set: true, All: true}
	a.AlwaysLoad = []string{"echo"}
	b := testServerConfig(t, "b", "tools")
	b.Defer = config.DeferSetting{Set: true, Tools: []string{"big", "hang"}}
	c := testServerConfig(t, "c", "tools")
	m, _, errs := startManager(t, Options{}, a, b, c)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	tests := []struct {
		deferAll bool
		active   []string
	}{
		{false, []string{"a__echo", "b__add_tool", "b__crash", "b__echo", "b__fail", "b__mixed", "b__raw_schema", "b__structured", "b__with_icons"}},
		{true, []string{"a__echo"}},
	}
	for _, tt := range tests {
		set := tools.NewSet()
		if err := m.Register(set, tt.deferAll); err != nil {
			t.Fatal(err)
		}
		var active []string
		for _, tl := range set.Active() {
			if tl.Server != "c" {
				active = append(active, tl.Name)
			}
		}
		slices.Sort(active)
		if !slices.Equal(active, tt.active) {
			t.Errorf("deferAll=%v: active %v, want %v", tt.deferAll, active, tt.active)
		}
		cActive := 0
		for _, tl := range set.Active() {
			if tl.Server == "c" {
				cActive++
			}
		}
		if want := map[bool]int{false: 10, true: 0}[tt.deferAll]; cActive != want {
			t.Errorf("deferAll=%v: server c has %d active tools, want %d", tt.deferAll, cActive, want)
		}
	}
	st := m.Status()
	if st[0].Deferred != 9 || st[1].Deferred != 2 || st[2].Deferred != 0 {
		t.Errorf("status deferred counts: %+v", st)
	}
}

// newInProcessServer is an mcp-go server for the HTTP transports.
func newInProcessServer() *server.MCPServer {
	s := server.NewMCPServer("inproc", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcpgo.NewToolWithRawSchema("whoami", "Says which Authorization header came", json.RawMessage(rawSchema)),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("auth=" + req.Header.Get("Authorization")), nil
		})
	return s
}

func TestHTTPTransportsInProcess(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var auth []string
	record := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			auth = append(auth, r.Header.Get("Authorization"))
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	}
	streamable := httptest.NewServer(record(server.NewStreamableHTTPServer(newInProcessServer())))
	t.Cleanup(streamable.Close)
	sse := httptest.NewUnstartedServer(nil)
	sseSrv := server.NewSSEServer(newInProcessServer(), server.WithBaseURL("http://"+sse.Listener.Addr().String()))
	sse.Config.Handler = record(sseSrv)
	sse.Start()
	t.Cleanup(sse.Close)

	headers := map[string]string{"Authorization": "Bearer t0ken"}
	m, _, errs := startManager(t, Options{},
		config.MCPServer{Name: "streamable", Type: config.MCPHTTP, URL: streamable.URL + "/mcp", Headers: headers},
		config.MCPServer{Name: "sse", Type: config.MCPSSE, URL: sse.URL + "/sse", Headers: headers},
	)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	for _, srv := range []string{"streamable", "sse"} {
		tl, ok := set.Lookup(srv + "__whoami")
		if !ok || string(tl.Schema) != rawSchema {
			t.Errorf("%s: tool %+v", srv, tl)
			continue
		}
		if r := call(t, set, srv+"__whoami", `{"target":"x"}`); r.IsError || !strings.HasPrefix(r.Text, "auth=") {
			t.Errorf("%s: %+v", srv, r)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range auth {
		if a != "Bearer t0ken" {
			t.Errorf("a request went without the configured header: %q", a)
		}
	}
}

func TestHTTPListChangedAndRestart(t *testing.T) {
	t.Parallel()
	srv := newInProcessServer()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	serve := func(l net.Listener) *http.Server {
		hs := &http.Server{Handler: server.NewStreamableHTTPServer(srv)}
		go func() { _ = hs.Serve(l) }()
		return hs
	}
	hs := serve(l)
	t.Cleanup(func() { _ = hs.Close() })

	m, ev, errs := startManager(t, Options{}, config.MCPServer{Name: "web", Type: config.MCPHTTP, URL: "http://" + addr + "/mcp"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}

	// tools/list_changed reaches an HTTP client through the GET stream.
	srv.AddTool(mcpgo.NewTool("late", mcpgo.WithDescription("added later")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("late ok"), nil
		})
	got := ev.wait(t, "tools_changed", func(e Event) bool { return e.Kind == EventToolsChanged })
	if !slices.Equal(got.Added, []string{"web__late"}) {
		t.Errorf("event %+v", got)
	}
	if changed, err := m.Sync(); err != nil || !slices.Equal(changed, []string{"web"}) {
		t.Fatalf("Sync after a tool was added: %q, %v; want [web]", changed, err)
	}
	if r := call(t, set, "web__late", `{}`); r.Text != "late ok" {
		t.Errorf("%+v", r)
	}

	// The server goes away: its tools say so, and come back with it.
	_ = hs.Close()
	r := call(t, set, "web__late", `{}`)
	if !r.IsError || !strings.Contains(r.Text, "MCP server web is not running") {
		t.Fatalf("after the server stopped: %+v", r)
	}
	ev.wait(t, "server_down", func(e Event) bool { return e.Kind == EventServerDown })
	l2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	hs2 := serve(l2)
	t.Cleanup(func() { _ = hs2.Close() })
	if r := call(t, set, "web__late", `{}`); r.Text != "late ok" || r.IsError {
		t.Errorf("after the server came back: %+v", r)
	}
	ev.wait(t, "server_up", func(e Event) bool { return e.Kind == EventServerUp })
}
