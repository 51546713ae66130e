package cmd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/app"

	"go.uber.org/goleak"
)

func runSearchCmd(t *testing.T, g *Globals, args ...string) (string, error) {
	t.Helper()
	c := newToolsSearchCmd(g)
	var out bytes.Buffer
	c.SetOut(&out)
	c.SetErr(&out)
	c.SetArgs(args)
	err := c.ExecuteContext(t.Context())
	return out.String(), err
}

func TestToolsSearchCatalog(t *testing.T) {
	dir := t.TempDir()
	catalog := filepath.Join(dir, "tools.jsonl")
	data := `{"id":"fs_read","name":"read_file","description":"Read a file.\nMore text.","input_schema":{"type":"object","properties":{"path":{"type":"string"}}},"server":"fs"}
{"id":"fs_write","name":"write_file","description":"Write a file.","inputSchema":{"type":"object"},"server":"fs"}
{"name":"get_weather","description":"Weather forecast for a city."}
`
	if err := os.WriteFile(catalog, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	queries := filepath.Join(dir, "queries.jsonl")
	if err := os.WriteFile(queries, []byte(`{"id":"q1","query":"read a file"}
{"id":2,"query":"/(/"}
{"id":"q3","query":"weather"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	g := &Globals{}
	tests := []struct {
		name string
		args []string
		want []string
		err  string
	}{
		{name: "text", args: []string{"--catalog", catalog, "read", "a", "file"},
			want: []string{"#  NAME", "1  read_file   fs      ", "Read a file.\n"}},
		{name: "json", args: []string{"--catalog", catalog, "--json", "--limit", "1", "weather"},
			want: []string{`"name": "get_weather"`}},
		{name: "regex mode", args: []string{"--catalog", catalog, "--mode", "regex", "^write"}, want: []string{"write_file"}},
		{name: "no match", args: []string{"--catalog", catalog, "xylophone"}, want: []string{`no tools match "xylophone" among 3 tools`}},
		{name: "queries", args: []string{"--catalog", catalog, "--queries", queries, "--limit", "2"},
			want: []string{`{"id":"q1","results":["fs_read","fs_write"]}`, `{"id":2,"results":[],"error":"invalid regex`, `{"id":"q3","results":["get_weather"]}`}},
		{name: "empty query", args: []string{"--catalog", catalog, " "}, err: "give a QUERY"},
		{name: "bad regex", args: []string{"--catalog", catalog, "/(/"}, err: "invalid regex"},
		{name: "bad mode", args: []string{"--catalog", catalog, "--mode", "fuzzy", "x"}, err: `--mode "fuzzy": unknown search mode: use auto, bm25, regex or select`},
		{name: "bad limit", args: []string{"--catalog", catalog, "--limit", "0", "x"}, err: "--limit"},
		// A file flag's file that cannot be read: one line naming the flag, the
		// path, what failed and what to give (it was Go's "read catalog: open
		// PATH: no such file or directory").
		{name: "missing catalog", args: []string{"--catalog", filepath.Join(dir, "nope.json"), "x"},
			err: "--catalog " + filepath.Join(dir, "nope.json") + ": no such file or directory: give a catalog file (a JSON array or JSONL of tools"},
		{name: "catalog is a directory", args: []string{"--catalog", dir, "x"},
			err: "--catalog " + dir + ": is a directory: give a catalog file"},
		{name: "missing history", args: []string{"--catalog", catalog, "--history", filepath.Join(dir, "nope.jsonl"), "x"},
			err: "--history " + filepath.Join(dir, "nope.jsonl") + `: no such file or directory: give a history file (JSONL of {"query": ..., "tool": ...})`},
		{name: "missing queries", args: []string{"--catalog", catalog, "--queries", filepath.Join(dir, "nope.jsonl")},
			err: "--queries " + filepath.Join(dir, "nope.jsonl") + `: no such file or directory: give a queries file (JSONL of {"id": ..., "query": ...})`},
		{name: "query and queries", args: []string{"--catalog", catalog, "--queries", queries, "x"}, err: "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runSearchCmd(t, g, tt.args...)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line with %q", err, tt.err)
				}
				var ue *UsageError
				if !errors.As(err, &ue) {
					t.Errorf("%v is not a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// agent tools search without --catalog searches the MCP servers' tools:
// here the test binary's own server, named with --mcp.
func TestToolsSearchMCP(t *testing.T) {
	isolate(t)
	g := &Globals{Flags: app.Flags{MCPConfig: testMCPConfig(t), MCP: []string{"tt"}}}
	before := goleak.IgnoreCurrent()
	out, err := runSearchCmd(t, g, "weather", "forecast")
	if err != nil || !strings.Contains(out, "tt__get_weather") {
		t.Errorf("out %q, err %v", out, err)
	}
	// The server it started is stopped and waited for before the command
	// returns, not when its context ends (here, with the test).
	if err := goleak.Find(before); err != nil {
		t.Errorf("the command returned with its MCP server still running: %v", err)
	}
	// No server at all: a usage error that names both ways.
	var ue *UsageError
	if _, err := runSearchCmd(t, &Globals{}, "x"); !errors.As(err, &ue) || !strings.Contains(err.Error(), "--catalog FILE") {
		t.Errorf("no servers: %v", err)
	}
}

// No tool to search: with no server at all, a usage error naming both
// ways to give tools; with a named server that did not start (the README's
// "agent tools search --mcp github" without a token), its warning and a
// line that does not ask for the --mcp the user gave (the warning itself
// goes to the process's stderr as the server fails).
func TestToolsSearchNoTools(t *testing.T) {
	isolate(t)
	failing := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(failing, []byte(`{"mcpServers": {"broken": {"command": "sh", "args": ["-c", "echo gone >&2; exit 3"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		g         *Globals
		usage     bool
		want, not string
	}{
		{"no server", &Globals{}, true, "name servers with --mcp NAME or give --catalog FILE", ""},
		{"server did not start", &Globals{Flags: app.Flags{MCPConfig: failing, MCP: []string{"broken"}}}, false,
			"no server listed its tools (the warning above says why)", "name servers with --mcp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runSearchCmd(t, tc.g, "open a pull request")
			var ue *UsageError
			if err == nil || errors.As(err, &ue) != tc.usage || !strings.Contains(err.Error(), tc.want) ||
				(tc.not != "" && strings.Contains(err.Error(), tc.not)) {
				t.Errorf("err %v (usage error: %v); want an error containing %q (usage: %v)", err, errors.As(err, &ue), tc.want, tc.usage)
			}
		})
	}
}
