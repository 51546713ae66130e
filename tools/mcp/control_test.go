package mcp

import (
	"testing"

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
	if _, err := m.Disable("nope"); err == nil {
		t.Error("disable of an unknown server succeeded")
	}
}
