package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// A failed -p run prints the JSON with the fields of a successful one
// (tools_hash and stop_reason empty where the run never got to them) and
// the error: whether the turn failed, the run stopped before it began, its
// stdin could not be read or its settings could not be loaded (exit 1).
func TestPrintFailedJSONKeepsFields(t *testing.T) {
	wd := isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Hi."}))
	ok := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}, "-p", "hi", "--base-url", fake.URL,
		"--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "json")
	if ok.code != 0 {
		t.Fatalf("exit %d: %s", ok.code, ok.stderr)
	}
	want := append(jsonKeys(t, ok.stdout), "error")
	slices.Sort(want)

	broken := writeJSON(t, "broken.json", map[string]any{"mcpServers": map[string]any{
		"broken": map[string]any{"command": "sh", "args": []string{"-c", "echo 'fatal: no token' >&2; exit 3"}},
	}})
	ollama := []string{"--provider", "ollama", "--model", "qwen3", "--base-url", "http://127.0.0.1:1/v1"}
	// A directory as stdin: its read fails (EISDIR), as a broken pipe's would.
	dir, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dir.Close() })
	// A project in the working directory with a trust list that is not
	// JSON: the settings fail to load (exit 1), before the run.
	badTrust := func(t *testing.T) {
		write := func(path, text string) {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		write(filepath.Join(wd, ".mcp.json"), `{"mcpServers": {}}`)
		write(filepath.Join(os.Getenv("XDG_DATA_HOME"), "agent", "trust.json"), "not json")
		t.Cleanup(func() { os.Remove(filepath.Join(wd, ".mcp.json")) })
	}
	for _, tc := range []struct {
		name, format string
		args         []string
		errWant      string
		stdin        io.Reader
		setup        func(*testing.T)
	}{
		{"turn fails", "json", ollama, "connection refused", nil, nil},
		{"turn fails", "stream-json", ollama, "connection refused", nil, nil},
		{"named server cannot start", "json", append([]string{"--mcp-config", broken, "--mcp", "broken"}, ollama...), "MCP server broken did not start", nil, nil},
		{"named server cannot start", "stream-json", append([]string{"--mcp-config", broken, "--mcp", "broken"}, ollama...), "MCP server broken did not start", nil, nil},
		{"stdin read fails", "json", ollama, "read stdin", dir, nil},
		{"stdin read fails", "stream-json", ollama, "read stdin", dir, nil},
		{"settings fail", "json", ollama, "trust.json", nil, badTrust},
		{"settings fail", "stream-json", ollama, "trust.json", nil, badTrust},
	} {
		t.Run(tc.name+"/"+tc.format, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup(t)
			}
			args := append([]string{"-p", "hi", "--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", tc.format}, tc.args...)
			var res runResult
			if tc.stdin != nil {
				var out, errb bytes.Buffer
				res.code = Execute(t.Context(), args, tc.stdin, &out, &errb, os.Getenv)
				res.stdout, res.stderr = out.String(), errb.String()
			} else {
				res = runAgent(t, nil, args...)
			}
			if res.code != 1 {
				t.Fatalf("exit %d, want 1: %s", res.code, res.stderr)
			}
			out := strings.TrimSpace(res.stdout)
			if i := strings.LastIndexByte(out, '\n'); tc.format == "stream-json" && i >= 0 {
				out = out[i+1:] // the result is the last line
			}
			got := jsonKeys(t, out)
			w := want
			if tc.format == "stream-json" {
				w = append(slices.Clone(want), "type")
				slices.Sort(w)
			}
			if !slices.Equal(got, w) {
				t.Errorf("fields %q, want %q", got, w)
			}
			var r PrintResult
			_ = json.Unmarshal([]byte(out), &r)
			if !r.IsError || !strings.Contains(r.Error, tc.errWant) || r.Provider != "ollama" {
				t.Errorf("is_error %v error %q provider %q", r.IsError, r.Error, r.Provider)
			}
		})
	}
}

// A -p run that stops before its turn reports its wall time as
// duration_ms, as a turn's result does: it said 0 whatever the run had
// waited (for a named server that then failed to start, say). The run is
// taken to have begun 1.5 s ago, rather than made to last that long.
func TestFailedRunReportsItsDuration(t *testing.T) {
	for _, format := range []string{"json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			var out bytes.Buffer
			g := &Globals{PromptSet: true, OutputFormat: format, Stdout: &out, start: time.Now().Add(-1500 * time.Millisecond)}
			began := time.Now()
			printFailed(g, errors.New("MCP server broken did not start"))
			most := time.Since(g.start).Milliseconds()
			var r PrintResult
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatalf("decode %q: %v", out.String(), err)
			}
			if least := began.Sub(g.start).Milliseconds(); r.DurationMS < least || r.DurationMS > most {
				t.Errorf("duration_ms %d, want the run's %d-%d ms", r.DurationMS, least, most)
			}
		})
	}
}

func jsonKeys(t *testing.T, s string) []string {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
