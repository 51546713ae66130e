package mcp

import (
	"errors"
	"strings"
	"testing"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
)

// TestDisableEnableReconnect: /mcp's actions change the tools array only at
// the next Sync, and say so.
func TestDisableEnableReconnect(t *testing.T) {
	t.Parallel()
	m, ev, errs := startManager(t, Options{}, testServerConfig(t, "edge", "tools"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	n := len(set.All())
	if _, err := m.Disable("edge"); err != nil {
		t.Fatal(err)
	}
	if len(set.All()) != n {
		t.Fatal("disable changed the tools before Sync")
	}
	if _, err := m.Sync(); err != nil {
		t.Fatal(err)
	}
	if len(set.All()) != 0 {
		t.Fatalf("disabled server still has %d tools", len(set.All()))
	}
	st, err := m.Enable(t.Context(), "edge")
	if err != nil || st.State != StateRunning {
		t.Fatalf("enable: %+v %v", st, err)
	}
	if _, err := m.Sync(); err != nil {
		t.Fatal(err)
	}
	if len(set.All()) != n {
		t.Fatalf("after enable %d tools, want %d", len(set.All()), n)
	}
	st, err = m.Reconnect(t.Context(), "edge")
	if err != nil || st.State != StateRunning {
		t.Fatalf("reconnect: %+v %v", st, err)
	}
	if r := call(t, set, "edge__echo", `{"message":"hi"}`); r.IsError {
		t.Fatalf("echo after reconnect: %+v", r)
	}
	// Reconnected with the same tools: no change to report.
	if changed, err := m.Sync(); err != nil || len(changed) != 0 {
		t.Errorf("Sync after a reconnect with the same tools: %q, %v; want nothing", changed, err)
	}
	ev.wait(t, "tools_changed", func(e Event) bool {
		return e.Kind == EventToolsChanged && e.Server == "edge" && e.Text != ""
	})
	// An unknown name: one line saying what to do, the nearest name when
	// it looks like a typo, of the kind ErrNoServer.
	for _, tc := range []struct {
		name string
		do   func(string) error
		want string
	}{
		{"nope", func(n string) error { _, err := m.Disable(n); return err }, `no MCP server "nope": /mcp lists them`},
		{"egde", func(n string) error { _, err := m.Disable(n); return err }, `no MCP server "egde": did you mean "edge"? (/mcp lists them)`},
		{"edg", func(n string) error { _, err := m.Enable(t.Context(), n); return err }, `no MCP server "edg": did you mean "edge"? (/mcp lists them)`},
		{"nope", func(n string) error { _, err := m.Reconnect(t.Context(), n); return err }, `no MCP server "nope": /mcp lists them`},
	} {
		if err := tc.do(tc.name); err == nil || err.Error() != tc.want || !errors.Is(err, ErrNoServer) {
			t.Errorf("/mcp action on %q: %v, want %q (ErrNoServer)", tc.name, err, tc.want)
		}
	}
}

// /mcp disable then enable of a lazy server that never started (its list
// cached): Disable ended the wait for its first start while that start
// still waited for its gate, so Enable's connection and the opened
// background start raced, and one lost as "manager closed while
// connecting" (the TUI said "MCP server memory is not running: restart
// failed: manager closed while connecting"). One start, no warning.
func TestEnableOfAnIdleServer(t *testing.T) {
	t.Parallel()
	cache := newMemCache()
	cfg := testServerConfig(t, "edge", "tools")
	fillCache(t, cache, cfg)
	cfg.Start = config.StartLazy
	m, ev, errs := startManager(t, Options{Cache: cache}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if st := m.Status()[0]; st.State != StateIdle {
		t.Fatalf("before: %+v", st)
	}
	if _, err := m.Disable("edge"); err != nil {
		t.Fatal(err)
	}
	st, err := m.Enable(t.Context(), "edge")
	if err != nil || st.State != StateRunning {
		t.Fatalf("enable: %+v %v", st, err)
	}
	if r := call(t, registeredSet(t, m), "edge__echo", `{"message":"hi"}`); r.IsError {
		t.Fatalf("echo after enable: %+v", r)
	}
	m.Close()
	ev.mu.Lock()
	defer ev.mu.Unlock()
	for _, e := range ev.all {
		if e.Kind == EventWarning || strings.Contains(e.Text, "closed while connecting") {
			t.Errorf("event %s: %s", e.Kind, e.Text)
		}
	}
}

func registeredSet(t *testing.T, m *Manager) *tools.Set {
	t.Helper()
	s := tools.NewSet()
	if err := m.Register(s, true); err != nil {
		t.Fatal(err)
	}
	return s
}
