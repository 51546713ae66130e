package cmd

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/tools/mcp/oauth/oauthtest"
)

// followURL is the test binary acting as $BROWSER.
func followURL(args []string) int {
	if len(args) != 1 {
		return 2
	}
	resp, err := http.Get(args[0])
	if err != nil {
		return 1
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return 0
}

// protectedMCP is a remote MCP server behind the strict fake authorization
// server, and an mcp.json naming it.
func protectedMCP(t *testing.T) (*oauthtest.Server, string) {
	s := server.NewMCPServer("remote", "1.0.0")
	s.AddTool(mcpgo.NewTool("whoami", mcpgo.WithDescription("Say who is signed in")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("signed in"), nil
		})
	as := oauthtest.New(t, server.NewStreamableHTTPServer(s))
	as.Scopes = []string{"mcp", "offline_access"}
	cfg := writeJSON(t, "mcp.json", map[string]any{"mcpServers": map[string]any{
		"remote": map[string]any{"type": "http", "url": as.ResourceURL}}})
	return as, cfg
}

// A remote server that answered without asking for a sign-in has none to
// show: `mcp list` said "not signed in" beside it (every HTTP server of
// FastMCP, the TypeScript SDK and server-everything), as if it needed one;
// the protected one, which refused the list, still says so. One where
// nothing answers shows none either: "not signed in" beside "connection
// refused" sent the user to agent mcp login.
func TestMCPListOpenServerNeedsNoSignIn(t *testing.T) {
	isolate(t)
	s := server.NewMCPServer("open", "1.0.0")
	s.AddTool(mcpgo.NewTool("ping"), func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("pong"), nil
	})
	open := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(open.Close)
	as, _ := protectedMCP(t)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close() // nothing answers at its URL now
	cfg := writeJSON(t, "mcp.json", map[string]any{"mcpServers": map[string]any{
		"open":   map[string]any{"type": "http", "url": open.URL + "/mcp"},
		"remote": map[string]any{"type": "http", "url": as.ResourceURL},
		"down":   map[string]any{"type": "http", "url": gone.URL + "/mcp"}}})
	res := runAgent(t, nil, "mcp", "list", "--json", "--mcp-config", cfg, "--db", filepath.Join(t.TempDir(), "a.db"))
	if res.code != 0 {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	var entries []struct {
		Name   string `json:"name"`
		State  string `json:"status"`
		SignIn string `json:"sign_in"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &entries); err != nil {
		t.Fatalf("%v\n%s", err, res.stdout)
	}
	want := map[string][2]string{"open": {"running", "-"}, "remote": {"failed", "not signed in"}, "down": {"failed", "-"}}
	for _, e := range entries {
		if w, ok := want[e.Name]; ok && (e.State != w[0] || e.SignIn != w[1]) {
			t.Errorf("%s: state %q, sign-in %q; want %q, %q", e.Name, e.State, e.SignIn, w[0], w[1])
		}
		delete(want, e.Name)
	}
	if len(want) != 0 {
		t.Errorf("not listed: %v", want)
	}
}

// The commands against the fakes: `mcp list` shows the sign-in
// state, `mcp login` signs in through $BROWSER, -p then uses the kept
// token, `mcp logout` forgets it; no token reaches the database or any
// output.
func TestMCPLoginListLogout(t *testing.T) {
	isolate(t)
	as, cfg := protectedMCP(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", exe)
	t.Setenv("AGENT_TEST_BROWSER", "1")
	db := filepath.Join(t.TempDir(), "agent.db")
	var outputs []string
	run := func(args ...string) runResult {
		res := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}, append(args, "--mcp-config", cfg, "--db", db)...)
		outputs = append(outputs, res.stdout, res.stderr)
		return res
	}

	remoteLine := func(out string) string {
		for l := range strings.SplitSeq(out, "\n") {
			if strings.HasPrefix(l, "remote ") {
				return l
			}
		}
		return ""
	}
	if res := run("mcp", "list"); res.code != 0 || !strings.Contains(remoteLine(res.stdout), "not signed in") {
		t.Fatalf("list before login: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res := run("mcp", "login", "remote")
	if res.code != 0 || !strings.Contains(res.stdout, "Signed in to remote. The token is kept in files of mode 0600 in ") || !strings.Contains(res.stderr, as.URL+"/authorize?") {
		t.Fatalf("login: exit %d\n%s%s\n%q", res.code, res.stdout, res.stderr, as.Log())
	}
	if res := run("mcp", "list"); res.code != 0 || !strings.Contains(remoteLine(res.stdout), "signed in") || strings.Contains(remoteLine(res.stdout), "not signed in") ||
		!strings.Contains(res.stdout, "Sign-ins are kept in files of mode 0600 in ") {
		t.Fatalf("list after login: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}

	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "remote__whoami", Input: map[string]any{}},
		anthropictest.Turn{Text: "You are signed in."}))
	t.Setenv("BROWSER", "false") // -p must not need the browser now
	res = run("-p", "who am I?", "--provider", "anthropic", "--base-url", fake.URL, "--mcp", "remote", "--output-format", "json")
	if res.code != 0 || decodePrint(t, res.stdout).ToolCalls[0].IsError {
		t.Fatalf("-p with the kept token: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}

	dbBytes, _ := os.ReadFile(db)
	for _, tok := range as.Issued() {
		if strings.Contains(string(dbBytes), tok) {
			t.Errorf("token %s… in the session database", tok[:5])
		}
		for _, o := range outputs {
			if strings.Contains(o, tok) {
				t.Errorf("token %s… in an output", tok[:5])
			}
		}
	}

	if res := run("mcp", "logout", "remote"); res.code != 0 || !strings.Contains(res.stdout, "Signed out of remote.") {
		t.Fatalf("logout: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := run("mcp", "list"); !strings.Contains(remoteLine(res.stdout), "not signed in") {
		t.Fatalf("list after logout:\n%s", res.stdout)
	}
}

// -p with a server that needs a sign-in nobody gives: it waits
// oauth_timeout, then ends with exit 1 and a line naming the command.
func TestPrintSignInTimesOut(t *testing.T) {
	isolate(t)
	_, cfg := protectedMCP(t)
	t.Setenv("BROWSER", "true") // opens nothing
	conf := writeJSON(t, "config.json", map[string]any{"oauth_timeout": "1s"})
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "unused"}))
	res := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}, "-p", "hi", "--config", conf,
		"--mcp-config", cfg, "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"))
	if res.code != 1 || !strings.Contains(res.stderr, "agent mcp login remote") || !strings.Contains(res.stderr, "oauth_timeout") {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("%d model requests: the run should stop before asking the model", n)
	}
}

// `agent mcp login` in a real terminal: the URL is printed, $BROWSER (the
// test binary) follows it, and the command says it signed in.
func TestMCPLoginInTmux(t *testing.T) {
	isolate(t)
	as, cfg := protectedMCP(t)
	ts := startTmux(t, signInEnv(t), "mcp", "login", "remote", "--mcp-config", cfg)
	ts.waitFor("Signed in to remote.")
	if h := ts.history(); !strings.Contains(h, "MCP server remote needs a sign-in") || !strings.Contains(h, as.URL+"/authorize?") {
		t.Fatalf("the URL was not printed:\n%s", h)
	}
	files, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_DATA_HOME"), "agent", "oauth", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files %v", files)
	}
}

// /mcp shows no sign-in step for a remote server waiting for its first
// call with its tools from the cache: it said "idle · not signed in"
// beside every plain HTTP server (server-everything's), which answered
// without asking for one when its catalog was cached.
func TestTUIIdleServerNeedsNoSignIn(t *testing.T) {
	isolate(t)
	s := server.NewMCPServer("open", "1.0.0")
	s.AddTool(mcpgo.NewTool("ping"), func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("pong"), nil
	})
	open := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(open.Close)
	cfg := writeJSON(t, "mcp.json", map[string]any{"mcpServers": map[string]any{
		"open": map[string]any{"type": "http", "url": open.URL + "/mcp"}}})
	db := filepath.Join(t.TempDir(), "a.db")
	// The first run lists it, which caches its catalog.
	if res := runAgent(t, nil, "tools", "--mcp-config", cfg, "--db", db); res.code != 0 {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	b := newTestTUIBackendWith(t, app.Options{Interactive: true}, env, "--mcp-config", cfg, "--db", db)
	servers := b.MCPServers()
	if len(servers) != 1 || servers[0].State != "idle" || servers[0].SignIn != "-" {
		t.Errorf("/mcp lists %+v, want open idle with no sign-in to do (-)", servers)
	}
}
