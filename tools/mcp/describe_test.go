package mcp

import (
	"testing"

	"github.com/agent-dev/agent/tools"
)

// TestConfiguredDescriptionWins checks that a server's description in the
// config, written by the user for tool search, is preferred over the first
// line of the instructions the server sends at initialize.
func TestConfiguredDescriptionWins(t *testing.T) {
	t.Parallel()
	cfg := testServerConfig(t, "edge", "tools")
	cfg.Description = "Fixtures for testing MCP clients"
	m, _, errs := startManager(t, Options{}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	all := set.All()
	if len(all) == 0 {
		t.Fatal("no tools registered")
	}
	for _, tl := range all {
		if tl.ServerDescription != cfg.Description {
			t.Errorf("%s: server description %q, want %q", tl.Name, tl.ServerDescription, cfg.Description)
		}
	}
}
