package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// everythingBin is the npm-installed server-everything, or "" when absent.
func everythingBin() string {
	prefix := os.Getenv("AGENT_MCP_NODE_PREFIX")
	if prefix == "" {
		_, file, _, _ := goruntime.Caller(0)
		prefix = filepath.Join(filepath.Dir(file), "..", ".ci", "node_modules", "mcp")
	}
	p := filepath.Join(prefix, "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

func runMCPList(t *testing.T, g *Globals, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	g.Stdout, g.Stderr = &out, &out
	c := newMCPCmd(g)
	c.SetArgs(append([]string{"list"}, args...))
	c.SetOut(&out)
	c.SetErr(&out)
	err := c.ExecuteContext(t.Context())
	return out.String(), err
}

func TestMCPList(t *testing.T) {
	bin := everythingBin()
	if bin == "" {
		t.Skip("server-everything not installed: run .ci/install-mcp.sh")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg.json")
	body := `{"mcpServers": {
		"everything": {"command": "` + bin + `", "args": ["stdio"], "alwaysLoad": ["echo"]},
		"broken": {"command": "agent-no-such-server"},
		"off": {"command": "x", "disabled": true}
	}}`
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	g := &Globals{Workdir: dir, MCPConfig: cfg, Defer: "true"}
	out, err := runMCPList(t, g, "--json")
	if err != nil {
		t.Fatal(err, out)
	}
	var entries []mcpListEntry
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err, out)
	}
	got := map[string]mcpListEntry{}
	for _, e := range entries {
		got[e.Name] = e
	}
	ev := got["everything"]
	if ev.State != mcptools.StateRunning || ev.Tools < 10 || ev.Deferred != ev.Tools-1 || len(ev.ToolNames) != ev.Tools {
		t.Errorf("everything: %+v", ev.Status)
	}
	if got["broken"].State != mcptools.StateFailed || !strings.Contains(got["broken"].Error, "not found") {
		t.Errorf("broken: %+v", got["broken"].Status)
	}
	if got["off"].State != mcptools.StateDisabled {
		t.Errorf("off: %+v", got["off"].Status)
	}
	for _, p := range []string{"github", "filesystem", "memory", "fetch", "playwright"} {
		if e := got[p]; !e.Preset || e.State != "available" {
			t.Errorf("preset %s: %+v", p, e)
		}
	}

	text, err := runMCPList(t, g, "--tools")
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + text)
	for _, want := range []string{"NAME", "everything", "running", "everything__echo", "active", "deferred", "broken", "failed", "playwright", "available"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
}

func TestMCPConfigErrors(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"mcpServers": {"x": {"type": "ws"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		g    Globals
		want string
	}{
		{Globals{Workdir: dir, MCPConfig: filepath.Join(dir, "missing.json")}, "missing.json: file not found"},
		{Globals{Workdir: dir, MCPConfig: bad}, `bad.json: server "x": unknown type "ws"`},
		{Globals{Workdir: dir, MCP: []string{"nope"}}, `unknown MCP server "nope"`},
	}
	for _, tt := range tests {
		_, err := runMCPList(t, &tt.g)
		var ue *UsageError
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &ue) {
			t.Errorf("got %v, want a usage error containing %q", err, tt.want)
		}
	}
}
