package cmd

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// agent tools search, agent tools and agent mcp list answer from a
// server's cached catalog without starting it; --refresh starts it and
// caches what it lists now. The outputs keep their formats, agent mcp
// list saying "cached" where it would say "running".
func TestListingCommandsDoNotStartCachedServers(t *testing.T) {
	isolate(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marks := t.TempDir()
	mark := filepath.Join(marks, "tt")
	extra := filepath.Join(marks, "extra")
	entry := map[string]any{"command": exe, "env": map[string]string{
		"AGENT_TEST_MCP_SERVER": "1", "AGENT_TEST_MCP_PIDFILE": mark, "AGENT_TEST_MCP_EXTRA": extra}}
	cfg := writeMCPServers(t, map[string]any{"tt": entry})
	db := filepath.Join(t.TempDir(), "agent.db")
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	// started says whether tt was started since it was last asked: the
	// test server writes its pid file as it starts.
	started := func() bool {
		err := os.Remove(mark)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		return err == nil
	}
	run := func(args ...string) string {
		t.Helper()
		res := runAgent(t, env, append(args, "--mcp-config", cfg, "--db", db)...)
		if res.code != 0 {
			t.Fatalf("agent %s: exit %d\n%s%s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
		}
		return res.stdout
	}
	// ttRow is tt's row of agent mcp list, as fields.
	ttRow := func(out string) []string {
		for l := range strings.SplitSeq(out, "\n") {
			if f := strings.Fields(l); len(f) > 4 && f[0] == "tt" {
				return f
			}
		}
		t.Fatalf("no row for tt:\n%s", out)
		return nil
	}

	// Nothing cached: tt starts, and its catalog is cached.
	if out := run("tools", "search", "weather"); !started() || !strings.Contains(out, "tt__get_weather") {
		t.Fatalf("first search: started %v\n%s", started(), out)
	}
	tests := []struct {
		name   string
		args   []string
		starts bool
		check  func(t *testing.T, out string)
	}{
		{"mcp list", []string{"mcp", "list"}, false, func(t *testing.T, out string) {
			if f := ttRow(out); f[2] != "cached" || f[4] == "-" {
				t.Errorf("tt listed %v, want status cached with its tool count", f)
			}
		}},
		{"mcp list --json", []string{"mcp", "list", "--json"}, false, func(t *testing.T, out string) {
			var entries []struct {
				Name   string `json:"name"`
				Status string `json:"status"`
				Tools  int    `json:"tools"`
				Cached bool   `json:"cached"`
			}
			if err := json.Unmarshal([]byte(out), &entries); err != nil {
				t.Fatal(err, out)
			}
			for _, e := range entries {
				if e.Name == "tt" && (e.Status != "cached" || !e.Cached || e.Tools == 0) {
					t.Errorf("tt: %+v, want status cached, cached, its tools", e)
				}
			}
		}},
		{"mcp list --refresh", []string{"mcp", "list", "--refresh"}, true, func(t *testing.T, out string) {
			if f := ttRow(out); f[2] != "running" {
				t.Errorf("tt listed %v, want running", f)
			}
		}},
		{"tools", []string{"tools"}, false, func(t *testing.T, out string) {
			if !strings.Contains(out, "tt__get_weather") || !strings.Contains(out, "SERVER  ") {
				t.Errorf("agent tools:\n%s", out)
			}
		}},
		{"tools --json", []string{"tools", "--json"}, false, func(t *testing.T, out string) {
			var rep struct {
				Servers []struct {
					Server string `json:"server"`
					Cached bool   `json:"cached"`
				} `json:"servers"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err, out)
			}
			for _, s := range rep.Servers {
				if s.Server == "tt" && !s.Cached {
					t.Errorf("tt not said cached: %s", out)
				}
			}
		}},
		{"tools --refresh", []string{"tools", "--refresh", "--json"}, true, func(t *testing.T, out string) {
			if strings.Contains(out, `"cached": true`) {
				t.Errorf("a refreshed server said cached: %s", out)
			}
		}},
		{"tools search", []string{"tools", "search", "weather"}, false, func(t *testing.T, out string) {
			if !strings.HasPrefix(out, "#") || !strings.Contains(out, "tt__get_weather") {
				t.Errorf("search:\n%s", out)
			}
		}},
		{"tools search --json", []string{"tools", "search", "--json", "weather"}, false, func(t *testing.T, out string) {
			if !strings.HasPrefix(out, "[") || !strings.Contains(out, "tt__get_weather") {
				t.Errorf("search:\n%s", out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := run(tt.args...)
			if got := started(); got != tt.starts {
				t.Errorf("tt started: %v, want %v", got, tt.starts)
			}
			tt.check(t, out)
		})
	}

	// The server's list changed: a cached search does not see it, a
	// refreshed one does and caches it for the next, which starts nothing.
	if err := os.WriteFile(extra, []byte("new_gadget"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args          []string
		starts, finds bool
	}{
		{[]string{"tools", "search", "gadget"}, false, false},
		{[]string{"tools", "search", "--refresh", "gadget"}, true, true},
		{[]string{"tools", "search", "gadget"}, false, true},
	} {
		out := run(c.args...)
		if got, finds := started(), strings.Contains(out, "tt__new_gadget"); got != c.starts || finds != c.finds {
			t.Errorf("%v: started %v, found the new tool %v; want %v, %v\n%s", c.args, got, finds, c.starts, c.finds, out)
		}
	}

	// A changed entry starts tt once, its list then cached under the new
	// entry; "start": "eager" starts it every time, as a session does.
	for _, c := range []struct {
		change string
		starts []bool // successive searches
	}{
		{"env", []bool{true, false}},
		{"eager", []bool{true, true}},
	} {
		switch c.change {
		case "env":
			entry["env"].(map[string]string)["AGENT_TEST_MCP_READONLY"] = "1"
		case "eager":
			entry["start"] = "eager"
		}
		b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"tt": entry}})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg, b, 0o600); err != nil {
			t.Fatal(err)
		}
		for i, want := range c.starts {
			run("tools", "search", "weather")
			if got := started(); got != want {
				t.Errorf("%s, search %d: started %v, want %v", c.change, i+1, got, want)
			}
		}
	}
}
