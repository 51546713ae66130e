package cmd

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/openaichat/chattest"
)

// bulkMCPConfig is testMCPConfig plus a server "bulk" of n tools.
func bulkMCPConfig(t *testing.T, n int) string {
	t.Helper()
	return writeTestMCPConfig(t, map[string]map[string]string{"bulk": {"AGENT_TEST_MCP_BULK": strconv.Itoa(n)}})
}

// toolNames are the function names of a Chat Completions tools array.
func toolNames(t *testing.T, tools []byte) []string {
	t.Helper()
	var defs []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(tools, &defs); err != nil {
		t.Fatalf("tools array: %v", err)
	}
	var out []string
	for _, d := range defs {
		out = append(out, d.Function.Name)
	}
	return out
}

// OpenAI's Chat Completions takes at most 128 tools a request (the fake
// answers more with OpenAI's 400). With 204 MCP tools, --defer auto defers
// the biggest server so each request fits, the same tools array every
// time, and its tools are found and called through search; without
// deferral the run fails before any request, in one line naming the limit
// and what to do.
func TestToolLimitOnChatCompletions(t *testing.T) {
	const bulk = 200
	t.Run("defer auto", func(t *testing.T) {
		isolate(t)
		f := chattest.NewServer(t)
		f.Script(chattest.Calls(chattest.SearchCall("call_1", "bulk operation 7", 3)),
			chattest.Calls(chattest.WrappedCall("call_2", "bulk__bulk_007", map[string]any{"id": "x"})), chattest.Text("Done."))
		res := runAgent(t, map[string]string{"OPENAI_API_KEY": "k"}, "-p", "Run bulk operation 7 on x", "--mcp-config", bulkMCPConfig(t, bulk),
			"--defer", "auto", "--provider", "openai-chat", "--base-url", f.URL+"/v1", "--model", "gpt-4.1",
			"--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "json")
		if res.code != 0 {
			t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
		}
		out := decodePrint(t, res.stdout)
		if out.Result != "Done." || len(out.ToolCalls) != 1 || out.ToolCalls[0].Name != "bulk__bulk_007" || out.ToolCalls[0].IsError {
			t.Errorf("result %q, tool calls %+v", out.Result, out.ToolCalls)
		}
		if n := len(f.Rejected()); n != 0 {
			t.Errorf("the fake rejected %d requests", n)
		}
		reqs := f.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3", len(reqs))
		}
		first := toolsOf(t, reqs[0].Body)
		names := toolNames(t, first)
		if len(names) > chattest.MaxTools || !contains(names, "tool_search") || !contains(names, "tt__get_weather") || contains(names, "bulk__bulk_007") {
			t.Errorf("%d tools sent: %v", len(names), names)
		}
		for i, r := range reqs[1:] {
			if !bytes.Equal(toolsOf(t, r.Body), first) {
				t.Errorf("request %d: tools array differs from the first", i+2)
			}
		}
		if !strings.Contains(res.stderr, "deferred the tools of bulk") || !strings.Contains(res.stderr, "128") {
			t.Errorf("no notice of what was deferred on stderr: %s", res.stderr)
		}
	})
	t.Run("not deferred", func(t *testing.T) {
		isolate(t)
		f := chattest.NewServer(t)
		f.Script(chattest.Text("never asked"))
		res := runAgent(t, map[string]string{"OPENAI_API_KEY": "k"}, "-p", "hi", "--mcp-config", bulkMCPConfig(t, bulk),
			"--provider", "openai-chat", "--base-url", f.URL+"/v1", "--model", "gpt-4.1", "--db", filepath.Join(t.TempDir(), "a.db"))
		if res.code == 0 {
			t.Fatalf("exit 0 with %d tools on Chat Completions\nstdout: %s", bulk+4, res.stdout)
		}
		if n := len(f.Requests()); n != 0 {
			t.Errorf("%d requests sent, want none", n)
		}
		line := strings.TrimSpace(res.stderr)
		if !strings.Contains(line, "at most 128 tools") || !strings.Contains(line, "--defer auto") || strings.Count(line, "\n") != 0 {
			t.Errorf("stderr: %q", res.stderr)
		}
	})
}
