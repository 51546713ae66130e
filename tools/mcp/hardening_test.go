//go:build unix

package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
)

// brokenReply is a JSON-RPC answer cut short: a line that starts as an MCP
// message but is not JSON.
const brokenReply = `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"te`

// runHardeningServer serves "echo" and a misbehaving tool: "freeze" stops
// the whole process (SIGSTOP: every later request hangs too), "garbage"
// writes an answer cut short on stdout and never answers. "banner" is a
// server like the npm time-mcp: it prints a banner on stdout before it
// serves, and its tools log there too (console.log), which the MCP SDKs'
// clients skip.
func runHardeningServer(mode string) {
	if mode == "banner" {
		fmt.Fprintln(os.Stdout, "Starting Time MCP server...")
	}
	s := server.NewMCPServer("hardening", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithString("message")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if mode == "banner" {
				fmt.Fprintln(os.Stdout, "{ tool: 'echo', level: 'debug' }")
			}
			return mcpgo.NewToolResultText("echo: " + req.GetString("message", "")), nil
		})
	s.AddTool(mcpgo.NewTool("bad"), func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		switch mode {
		case "freezer":
			_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		case "garbage-call":
			fmt.Fprintln(os.Stdout, brokenReply)
		}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	_ = server.ServeStdio(s)
}

// #14 case 7: a tool that times out on a stdio server restarts it (its
// process group killed), so the server's other tools answer at once.
func TestHungServerIsRestartedAfterToolTimeout(t *testing.T) {
	t.Parallel()
	cfg := testServerConfig(t, "h", "freezer")
	// The timeout is every tool's, the healthy echo's after the restart
	// too: 500ms failed that echo under -race at load 20-28 (a round trip
	// to a race-built server waiting for a core), so it is as long as
	// the echo is allowed below.
	cfg.ToolTimeout = 5 * time.Second
	m, ev, errs := startManager(t, Options{}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := register(t, m)
	r := call(t, set, "h__bad", `{}`)
	if !r.IsError || !strings.Contains(r.Text, "did not answer within 5s") || !strings.Contains(r.Text, "restarted") {
		t.Fatalf("timeout result: %+v", r)
	}
	ev.wait(t, "server_up", func(e Event) bool { return e.Kind == EventServerUp })
	start := time.Now()
	if r := call(t, set, "h__echo", `{"message":"alive"}`); r.IsError || r.Text != "echo: alive" {
		t.Fatalf("after the restart: %+v", r)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("healthy tool took %s after the restart", d)
	}
}

// #14 case 7: an answer cut short (not JSON) fails the call at once.
func TestMalformedReplyFailsTheCallAtOnce(t *testing.T) {
	t.Parallel()
	cfg := testServerConfig(t, "g", "garbage-call")
	cfg.ToolTimeout = time.Minute
	m, _, errs := startManager(t, Options{}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := register(t, m)
	start := time.Now()
	r := call(t, set, "g__bad", `{}`)
	if !r.IsError || !strings.Contains(r.Text, "not JSON") || !strings.Contains(r.Text, `{\"jsonrpc\":\"2.0\",\"id\":2`) {
		t.Fatalf("result: %+v", r)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the malformed reply took %s to fail the call", d)
	}
	if r := call(t, set, "g__echo", `{"message":"still"}`); r.Text != "echo: still" {
		t.Errorf("after: %+v", r)
	}
}

// A server whose command is a path to nothing, or to a file that is not
// executable, says so in words (exec's said "command \"/x\": exec:
// \"/x\": stat /x: no such file or directory").
func TestStartFailsOnABadCommandPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "server.txt")
	if err := os.WriteFile(plain, []byte("not a program"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "mcp.json")
	_, _, errs := startManager(t, Options{StartTimeout: 10 * time.Second},
		config.MCPServer{Name: "missing", Type: config.MCPStdio, Command: filepath.Join(dir, "nope", "server"), Source: src},
		config.MCPServer{Name: "plain", Type: config.MCPStdio, Command: plain, Source: src})
	got := map[string]string{}
	for _, err := range errs {
		for _, n := range []string{"missing", "plain"} {
			if strings.HasPrefix(err.Error(), "MCP server "+n+" ") {
				got[n] = err.Error()
			}
		}
	}
	for n, want := range map[string]string{
		"missing": fmt.Sprintf("command %q does not exist: check the server's \"command\" in %s", filepath.Join(dir, "nope", "server"), src),
		"plain":   fmt.Sprintf("command %q is not an executable file", plain),
	} {
		if !strings.Contains(got[n], want) || strings.Contains(got[n], "exec:") {
			t.Errorf("%s: %q, want %q", n, got[n], want)
		}
	}
}

// A stdio server that prints a banner on stdout before it serves, and log
// lines there while it runs, starts and answers, as with the MCP SDKs'
// clients (the npm time-mcp 1.0.6 did not start: "the server wrote a line
// that is not JSON on stdout"). A call that then times out says what the
// server wrote.
func TestLogLinesOnStdoutAreSkipped(t *testing.T) {
	t.Parallel()
	cfg := testServerConfig(t, "b", "banner")
	// Every tool's timeout, the echoes' too: as long as in
	// TestHungServerIsRestartedAfterToolTimeout, for -race under load.
	cfg.ToolTimeout = 5 * time.Second
	m, _, errs := startManager(t, Options{InitTimeout: time.Minute}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := register(t, m)
	for range 2 {
		if r := call(t, set, "b__echo", `{"message":"hi"}`); r.IsError || r.Text != "echo: hi" {
			t.Fatalf("echo: %+v", r)
		}
	}
	r := call(t, set, "b__bad", `{}`)
	if !r.IsError || !strings.Contains(r.Text, "did not answer within 5s") || !strings.Contains(r.Text, "{ tool: 'echo', level: 'debug' }") {
		t.Errorf("timeout result: %+v", r)
	}
}

// #14 case 7: garbage in answer to initialize, a server that talks but never
// answers, and one that exits: each fails fast and says why.
func TestStartFailuresFastAndExplained(t *testing.T) {
	t.Parallel()
	start := time.Now()
	_, _, errs := startManager(t, Options{StartTimeout: 30 * time.Second, InitTimeout: 400 * time.Millisecond},
		testServerConfig(t, "garbage", "garbage-init"), testServerConfig(t, "talker", "talker"), testServerConfig(t, "exits", "exit"))
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("start failures took %s", d)
	}
	got := map[string]string{}
	for _, err := range errs {
		for _, n := range []string{"garbage", "talker", "exits"} {
			if strings.HasPrefix(err.Error(), "MCP server "+n+" ") {
				got[n] = err.Error()
			}
		}
	}
	for n, want := range map[string][]string{
		"garbage": {"not JSON", "Starting server... (not JSON)"},
		"talker":  {"initialize: no answer within 400ms", "listening"},
		"exits":   {"exit status 2", "fatal: MISSING_TOKEN is not set"},
	} {
		for _, w := range want {
			if !strings.Contains(got[n], w) {
				t.Errorf("%s: %q does not say %q", n, got[n], w)
			}
		}
	}
}

// A remote server that is not running says so in one line: its start error
// was "initialize: transport error: failed to send request: failed to send
// request: Post "URL": dial tcp ADDR: connect: connection refused" (SSE's
// was "connect to URL: failed to connect to SSE stream: Get ..."), and
// keeps its kind.
func TestRefusedRemoteServerSaysSo(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	l.Close()
	_, _, errs := startManager(t, Options{StartTimeout: 10 * time.Second},
		config.MCPServer{Name: "h", Type: config.MCPHTTP, URL: base + "/mcp", Source: "test"},
		config.MCPServer{Name: "s", Type: config.MCPSSE, URL: base + "/sse", Source: "test"})
	if len(errs) != 2 {
		t.Fatalf("errors: %v", errs)
	}
	for _, err := range errs {
		name := "h"
		if strings.HasPrefix(err.Error(), "MCP server s ") {
			name = "s"
		}
		want := map[string]string{"h": base + "/mcp", "s": base + "/sse"}[name]
		if !strings.Contains(err.Error(), "nothing answers at "+want+" (connection refused)") || strings.Count(err.Error(), want) != 1 ||
			strings.Contains(err.Error(), "failed to send request") {
			t.Errorf("%s: %v", name, err)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("%s: the error lost its kind: %#v", name, err)
		}
	}
}

// Which lines that are not JSON fail the waiting call at once (an MCP
// message cut short or garbled) and which are skipped as logs. The
// TypeScript SDK writes a message's "jsonrpc" and "id" after its result
// ({"result":{...},"jsonrpc":"2.0","id":2}), so its answer cut short
// holds no "jsonrpc"; nor do the first 200 bytes of a long one.
func TestLineCheckTellsMessagesFromLogs(t *testing.T) {
	long := `{"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 300) + `"}]},"jsonrpc":"2.0","id":2,}`
	for _, c := range []struct {
		name, line string
		message    bool
	}{
		{"cut short, jsonrpc first", brokenReply, true},
		{"cut short, TypeScript SDK order", `{"result":{"content":[{"type":"text","text":"cut`, true},
		{"error cut short", `{"error":{"code":-32603,"message":"boom`, true},
		{"request cut short", `{ "method":"sampling/createMessage","params":{`, true},
		{"garbled, jsonrpc past 200 bytes", long, true},
		{"banner", "Starting Time MCP server...", false},
		{"Node's console.log of an object", "{ tool: 'echo', level: 'debug' }", false},
		{"a log line in braces", `{"level":"info","msg":"ready"`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &proc{bad: make(chan string, 1), talked: make(chan struct{})}
			if _, err := io.ReadAll(&lineCheck{r: strings.NewReader(c.line + "\n"), p: p}); err != nil {
				t.Fatal(err)
			}
			var bad string
			select {
			case bad = <-p.bad:
			default:
			}
			if got := bad != ""; got != c.message {
				t.Fatalf("%q: failed the call = %v (noise %q), want %v", c.line, got, p.noiseLine(), c.message)
			}
			if c.message && bad != firstLine(c.line, 200) || !c.message && p.noiseLine() != c.line {
				t.Errorf("%q: kept %q / noise %q", c.line, bad, p.noiseLine())
			}
		})
	}
}
