package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// everythingConfig isolates the test and writes an MCP config with
// server-everything over stdio as "ev" (the test skips when it is not
// installed).
func everythingConfig(t *testing.T) string {
	t.Helper()
	bin := everythingBin()
	if bin == "" {
		t.Skip("server-everything not installed: run .ci/install-mcp.sh (or set AGENT_MCP_NODE_PREFIX)")
	}
	isolate(t)
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	body, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"ev": map[string]any{"command": bin, "args": []string{"stdio"}}}})
	if err := os.WriteFile(cfg, body, 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestPrintEverythingProgressAndResourceLink runs -p against the real
// server-everything over stdio: the model calls the long-running tool (its
// progress reaches stream-json as tool_progress events), then a tool that
// returns a resource link, then reads that link with read_resource.
func TestPrintEverythingProgressAndResourceLink(t *testing.T) {
	cfg := everythingConfig(t)
	link := regexp.MustCompile(`\[resource link (\S+?)[\] ]`)
	fake := anthropictest.NewServer(t)
	var offered [][]byte
	fake.Handler = func(r *anthropictest.Request) anthropictest.Reply {
		offered = append(offered, r.Tools())
		msgs := r.Messages()
		last := string(msgs[len(msgs)-1])
		switch {
		case len(msgs) == 1:
			return anthropictest.Message(
				anthropictest.ToolUse("toolu_long", "ev__trigger-long-running-operation", map[string]any{"duration": 0.6, "steps": 3}),
				anthropictest.ToolUse("toolu_links", "ev__get-resource-links", map[string]any{"count": 1}))
		case strings.Contains(last, "toolu_links"):
			m := link.FindStringSubmatch(strings.ReplaceAll(last, `\"`, `"`))
			if m == nil {
				return anthropictest.Message(anthropictest.Text("no link in " + last))
			}
			return anthropictest.Message(anthropictest.ToolUse("toolu_read", "read_resource", map[string]any{"uri": m[1]}))
		}
		return anthropictest.Message(anthropictest.Text("Done."))
	}
	res := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey},
		"-p", "Run the long operation and read the linked resource.", "--provider", "anthropic", "--base-url", fake.URL,
		"--mcp-config", cfg, "--mcp", "ev", "--db", filepath.Join(t.TempDir(), "agent.db"), "--output-format", "stream-json")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	var progress []map[string]any
	var readResult string
	for _, ev := range streamEvents(t, res.stdout) {
		switch ev["type"] {
		case "tool_progress":
			progress = append(progress, ev)
		case "tool_call_finished":
			if tl, _ := ev["tool"].(map[string]any); tl["name"] == "read_resource" {
				readResult, _ = tl["result"].(string)
				if tl["is_error"] == true {
					t.Errorf("read_resource failed: %s", readResult)
				}
			}
		}
	}
	if len(progress) != 3 {
		t.Fatalf("tool_progress events: %v\n%s", progress, res.stdout)
	}
	for i, p := range progress {
		if p["id"] != "toolu_long" || p["progress"] != float64(i+1) || p["total"] != float64(3) {
			t.Errorf("progress %d: %v", i, p)
		}
		if _, ok := p["message"]; !ok {
			t.Errorf("progress %d has no message field: %v", i, p)
		}
	}
	if readResult == "" {
		t.Fatalf("the model never read the link:\n%s", res.stdout)
	}
	if !bytes.Contains(offered[0], []byte(`"read_resource"`)) {
		t.Errorf("read_resource not offered: %s", offered[0])
	}
}

// TestPrintEverythingAsyncTasks runs -p --yes against server-everything's
// -async tools, which send their sampling and elicitation requests as
// tasks the client runs: the sampling is answered by the session's model
// (the fake), the elicitation by --yes's accept-defaults (a required field
// without a default: declined), each read back through tasks/result.
func TestPrintEverythingAsyncTasks(t *testing.T) {
	cfg := everythingConfig(t)
	fake := anthropictest.NewServer(t)
	fake.Handler = func(r *anthropictest.Request) anthropictest.Reply {
		msgs := r.Messages()
		first := string(msgs[0])
		switch {
		case strings.Contains(first, "trigger-sampling-request-async context: tides"):
			return anthropictest.Message(anthropictest.Text("Tides follow the moon."))
		case len(msgs) == 1:
			return anthropictest.Message(
				anthropictest.ToolUse("toolu_s", "ev__trigger-sampling-request-async", map[string]any{"prompt": "tides", "maxTokens": 20}),
				anthropictest.ToolUse("toolu_e", "ev__trigger-elicitation-request-async", map[string]any{}))
		}
		return anthropictest.Message(anthropictest.Text("Done."))
	}
	res := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey},
		"-p", "Try the async tools.", "--yes", "--provider", "anthropic", "--base-url", fake.URL,
		"--mcp-config", cfg, "--mcp", "ev", "--db", filepath.Join(t.TempDir(), "agent.db"), "--output-format", "stream-json")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	results := map[string]string{}
	for _, ev := range streamEvents(t, res.stdout) {
		if tl, _ := ev["tool"].(map[string]any); ev["type"] == "tool_call_finished" {
			id, _ := tl["id"].(string)
			results[id], _ = tl["result"].(string)
		}
	}
	for id, wants := range map[string][]string{
		"toolu_s": {"[COMPLETED] Async sampling completed!", "Tides follow the moon.", "io.modelcontextprotocol/related-task"},
		"toolu_e": {"[DECLINED]", "io.modelcontextprotocol/related-task"},
	} {
		for _, want := range wants {
			if !strings.Contains(results[id], want) {
				t.Errorf("%s: no %q in %q\n%s", id, want, results[id], res.stdout)
			}
		}
	}
}

// streamEvents reads -p's stream-json output, one event a line.
func streamEvents(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not JSON: %s", sc.Text())
		}
		evs = append(evs, ev)
	}
	return evs
}
