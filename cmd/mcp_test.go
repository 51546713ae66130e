package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
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
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // the catalog cache's database
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
	g := &Globals{Flags: app.Flags{Workdir: dir, MCPConfig: cfg, Defer: "true"}}
	out, err := runMCPList(t, g, "--json")
	if err != nil {
		t.Fatal(err, out)
	}
	var entries []app.MCPEntry
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err, out)
	}
	got := map[string]app.MCPEntry{}
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

	// everything's catalog is cached now: listed from it, not started
	// (broken has none: it is tried again).
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--tools"}, []string{"NAME", "everything", "cached", "everything__echo", "active", "deferred", "broken", "failed", "playwright", "available"}},
		{[]string{"--tools", "--refresh"}, []string{"everything", "running", "everything__echo", "broken", "failed"}},
	} {
		g := &Globals{Flags: app.Flags{Workdir: dir, MCPConfig: cfg, Defer: "true"}}
		text, err := runMCPList(t, g, c.args...)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range c.want {
			if !strings.Contains(text, want) {
				t.Errorf("%v: text output lacks %q:\n%s", c.args, want, text)
			}
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
		{Globals{Flags: app.Flags{Workdir: dir, MCPConfig: filepath.Join(dir, "missing.json")}}, "missing.json does not exist: check the path given to --mcp-config"},
		{Globals{Flags: app.Flags{Workdir: dir, MCPConfig: bad}}, `bad.json: server "x": unknown type "ws"`},
		{Globals{Flags: app.Flags{Workdir: dir, MCP: []string{"nope"}}}, `unknown MCP server "nope"`},
	}
	for _, tt := range tests {
		_, err := runMCPList(t, &tt.g)
		var ue *UsageError
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &ue) {
			t.Errorf("got %v, want a usage error containing %q", err, tt.want)
		}
	}
}

// serveEverything starts server-everything on an HTTP transport and
// returns its base URL once it accepts connections.
func serveEverything(t *testing.T, bin, mode string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, mode)
	cmd.Env = append(os.Environ(), "PORT="+strings.TrimPrefix(addr[strings.LastIndex(addr, ":"):], ":"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything %s did not listen on %s", mode, addr)
		}
		if r, err := http.Get("http://" + addr); err == nil { //nolint:noctx // readiness probe, paces the loop
			_ = r.Body.Close()
		}
	}
}

// The MCP issue's "done when": agent --mcp-config cfg.json --mcp everything
// --defer -p finds a tool of the real server-everything through search and
// calls it, on each transport.
func TestPrintFindsAndCallsRealEverythingOnEveryTransport(t *testing.T) {
	bin := everythingBin()
	if bin == "" {
		t.Skip("server-everything not installed: run .ci/install-mcp.sh")
	}
	httpBase := serveEverything(t, bin, "streamableHttp")
	sseBase := serveEverything(t, bin, "sse")
	transports := map[string]map[string]any{
		"stdio": {"command": bin, "args": []string{"stdio"}},
		"http":  {"type": "http", "url": httpBase + "/mcp"},
		"sse":   {"type": "sse", "url": sseBase + "/sse"},
	}
	for _, name := range []string{"stdio", "http", "sse"} {
		t.Run(name, func(t *testing.T) {
			isolate(t)
			b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": transports[name]}})
			cfg := filepath.Join(t.TempDir(), "cfg.json")
			if err := os.WriteFile(cfg, b, 0o600); err != nil {
				t.Fatal(err)
			}
			f := chattest.NewServer(t)
			f.Script(chattest.Calls(chattest.SearchCall("call_1", "echo back the input message", 3)),
				chattest.Calls(chattest.WrappedCall("call_2", "everything__echo", map[string]any{"message": "hi from " + name})),
				chattest.Text("It echoed."))
			res := runAgent(t, nil, "-p", "Echo something", "--mcp-config", cfg, "--mcp", "everything", "--defer",
				"--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "json",
				"--provider", "ollama", "--base-url", f.URL+"/v1", "--model", "qwen3")
			if res.code != 0 {
				t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
			}
			out := decodePrint(t, res.stdout)
			if len(out.Searches) != 1 || !slices.Contains(out.Searches[0].Tools, "everything__echo") {
				t.Errorf("searches = %+v", out.Searches)
			}
			if len(out.ToolCalls) != 1 || out.ToolCalls[0].Name != "everything__echo" || out.ToolCalls[0].IsError {
				t.Errorf("tool calls = %+v", out.ToolCalls)
			}
			reqs := f.Requests()
			if len(reqs) != 3 || !strings.Contains(string(reqs[2].Body), "hi from "+name) {
				t.Errorf("the tool's answer did not reach the model (%d requests)", len(reqs))
			}
			if n := len(f.Rejected()); n != 0 {
				t.Errorf("the fake rejected %d requests", n)
			}
		})
	}
}
