package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
)

// A server that comes up in the background before there is a set to
// register with (a first run's early start, which the UI's first frame
// does not wait for) is said once Register comes, as one coming up later
// is: the first start in a new directory named no server when it was fast
// (cmd TestFirstStartGreetingInTmux failed so, at load 5).
func TestUpBeforeRegisterIsSaid(t *testing.T) {
	t.Parallel()
	cfgs := httpServers(t, 2)
	m, ev, errs := startManager(t, Options{Background: true}, cfgs...)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	deadline := time.Now().Add(20 * time.Second)
	for up := 0; up < len(cfgs); {
		up = 0
		for _, st := range m.Status() {
			if st.State == StateRunning {
				up++
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("servers never up: %+v", m.Status())
		}
		<-time.After(10 * time.Millisecond)
	}
	said := func() []string {
		ev.mu.Lock()
		defer ev.mu.Unlock()
		var out []string
		for _, e := range ev.all {
			if e.Kind == EventToolsChanged && strings.Contains(e.Text, " is up (") {
				out = append(out, e.Server)
			}
		}
		return out
	}
	if got := said(); len(got) > 0 {
		t.Fatalf("said up before Register: %v", got)
	}
	if err := m.Register(tools.NewSet(), false); err != nil {
		t.Fatal(err)
	}
	got := said()
	if len(got) != 2 || got[0] == got[1] {
		t.Fatalf("servers said up after Register: %v, want s0 and s1 once each", got)
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	for _, e := range ev.all {
		if e.Kind == EventToolsChanged && e.Tools == 0 {
			t.Errorf("event %+v has no tool count", e)
		}
	}
}
