package mcp

import (
	"testing"

	"github.com/agent-dev/agent/tools"
)

// A server's schemas are checked as its list arrives, in its own start
// (listTools), so registering its tools checks nothing more and the cache
// records every schema as checked; a warm start then checks none.
func TestListedSchemasCheckedOnArrival(t *testing.T) {
	t.Parallel()
	cache := newMemCache()
	cfg := testServerConfig(t, "edge", "tools")
	m, _, errs := startManager(t, Options{Cache: cache}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, c := range m.conns {
		for _, rt := range c.list {
			if !rt.Checked {
				t.Errorf("%s: its schema was not checked as the list arrived", rt.Name)
			}
		}
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	if len(set.All()) == 0 {
		t.Fatal("no tools registered")
	}
	for _, tl := range set.All() {
		if tl.Server == "edge" && !tl.SchemaChecked {
			t.Errorf("%s: registered unchecked", tl.Name)
		}
	}
}
