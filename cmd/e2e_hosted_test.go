package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

// Provider-hosted tools: the searched sources reach the JSON output on both
// providers that host web search.
func TestPrintWebSearchSources(t *testing.T) {
	t.Run("anthropic", func(t *testing.T) {
		isolate(t)
		f := anthropictest.NewServer(t)
		blocks := anthropictest.WebSearch("srvtoolu_web1", "go release", [2]string{"https://go.dev/doc/devel/release", "Release History"})
		blocks = append(blocks, anthropictest.CitedText("Go 1.26 is out.", "https://go.dev/doc/devel/release", "Release History"))
		f.Enqueue(anthropictest.Reply{Content: blocks, ServerToolUses: map[string]int{"web_search_requests": 1}})
		res := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}, "-p", "Latest Go?",
			"--provider", "anthropic", "--base-url", f.URL, "--provider-tool", `web_search:{"max_uses":2}`,
			"--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "json")
		if res.code != 0 {
			t.Fatalf("exit %d: %s", res.code, res.stderr)
		}
		out := decodePrint(t, res.stdout)
		if len(out.Sources) != 1 || out.Sources[0].URL != "https://go.dev/doc/devel/release" || out.Sources[0].Title != "Release History" {
			t.Errorf("sources = %+v", out.Sources)
		}
		if len(out.ServerToolCalls) != 1 || out.ServerToolCalls[0].Name != "web_search" || !strings.Contains(string(out.ServerToolCalls[0].Input), "go release") {
			t.Errorf("server tool calls = %+v", out.ServerToolCalls)
		}
		if out.Usage.ServerToolUse["web_search_requests"] != 1 {
			t.Errorf("usage = %+v", out.Usage)
		}
		var body map[string]json.RawMessage
		_ = json.Unmarshal(f.Requests()[0].Body, &body)
		if !strings.Contains(string(body["tools"]), `"type":"web_search_20250305"`) || !strings.Contains(string(body["tools"]), `"max_uses":2`) {
			t.Errorf("tools = %s", body["tools"])
		}
	})
	t.Run("openai", func(t *testing.T) {
		isolate(t)
		f := rt.NewServer(t)
		src := rt.Source{URL: "https://go.dev/blog", Title: "The Go Blog"}
		f.Script(rt.Turn{rt.WebSearch("go news", src), rt.Text("Go news.", src)})
		res := runAgent(t, map[string]string{"OPENAI_API_KEY": f.APIKey}, "-p", "Go news?", "--provider", "openai",
			"--base-url", f.URL, "--model", "gpt-5.4", "--provider-tool", "web_search",
			"--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "json")
		if res.code != 0 {
			t.Fatalf("exit %d: %s", res.code, res.stderr)
		}
		out := decodePrint(t, res.stdout)
		if len(out.Sources) != 1 || out.Sources[0].URL != src.URL {
			t.Errorf("sources = %+v", out.Sources)
		}
		if len(out.ServerToolCalls) == 0 || out.ServerToolCalls[0].Name != "web_search" {
			t.Errorf("server tool calls = %+v", out.ServerToolCalls)
		}
	})
}

// A remote MCP call on OpenAI waits for approval: denied without --yes (and
// the denied call does not run), approved with it.
func TestPrintRemoteMCPApproval(t *testing.T) {
	for _, tc := range []struct {
		yes     bool
		approve bool
	}{{false, false}, {true, true}} {
		isolate(t)
		f := rt.NewServer(t)
		f.Script(rt.Turn{rt.MCPApproval("deepwiki", "ask_question", `{"q":"x"}`)},
			rt.Turn{rt.MCPCall("deepwiki", "ask_question", `{"q":"x"}`, "the answer"), rt.Text("Done.")})
		args := []string{"-p", "Ask deepwiki", "--provider", "openai", "--base-url", f.URL, "--model", "gpt-5.4",
			"--provider-tool", `mcp:{"name":"deepwiki","url":"https://mcp.deepwiki.com/mcp","require_approval":"always"}`,
			"--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "json"}
		if tc.yes {
			args = append(args, "--yes")
		}
		res := runAgent(t, map[string]string{"OPENAI_API_KEY": f.APIKey}, args...)
		if res.code != 0 {
			t.Fatalf("yes=%v: exit %d: %s", tc.yes, res.code, res.stderr)
		}
		if len(f.Rejected()) != 0 {
			t.Fatalf("rejected: %+v", f.Rejected())
		}
		reqs := f.Requests()
		if len(reqs) != 2 {
			t.Fatalf("requests = %d", len(reqs))
		}
		want := `"approve":` + map[bool]string{true: "true", false: "false"}[tc.approve]
		if !strings.Contains(string(reqs[1].Body), `"type":"mcp_approval_response"`) || !strings.Contains(string(reqs[1].Body), want) {
			t.Errorf("yes=%v: second request lacks %s: %s", tc.yes, want, reqs[1].Body)
		}
		out := decodePrint(t, res.stdout)
		ranOK := false
		for _, c := range out.ServerToolCalls {
			if c.Name == "deepwiki.ask_question" && !c.IsError {
				ranOK = true
			}
		}
		if ranOK != tc.approve {
			t.Errorf("yes=%v: server tool calls = %+v", tc.yes, out.ServerToolCalls)
		}
		if !tc.yes && !strings.Contains(res.stderr, "rerun with --yes") {
			t.Errorf("no denial notice: %q", res.stderr)
		}
	}
}

// Resume on OpenAI: the stored hosted search items are replayed byte for byte
// and the tool found stays found (no new search).
func TestPrintResumeOpenAIWithoutSearchingAgain(t *testing.T) {
	isolate(t)
	f := rt.NewServer(t)
	f.Script(rt.Turn{rt.HostedSearch("weather forecast"), rt.Call("tt__get_weather", `{"city":"Oslo"}`)}, rt.Turn{rt.Text("Sunny.")},
		rt.Turn{rt.Call("tt__get_weather", `{"city":"Rome"}`)}, rt.Turn{rt.Text("Also sunny.")})
	db := filepath.Join(t.TempDir(), "a.db")
	env := map[string]string{"OPENAI_API_KEY": f.APIKey}
	common := []string{"--mcp-config", testMCPConfig(t), "--db", db, "--output-format", "json", "--base-url", f.URL}
	res := runAgent(t, env, append([]string{"-p", "Oslo?", "--provider", "openai", "--model", "gpt-5.4", "--mcp", "tt", "--defer"}, common...)...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	first := decodePrint(t, res.stdout)
	res2 := runAgent(t, env, append([]string{"-p", "Rome?", "--resume", first.SessionID}, common...)...)
	if res2.code != 0 {
		t.Fatalf("resume exit %d: %s", res2.code, res2.stderr)
	}
	second := decodePrint(t, res2.stdout)
	if len(second.Searches) != 0 || second.Result != "Also sunny." || len(second.ToolCalls) != 1 || second.ToolCalls[0].IsError {
		t.Errorf("resumed = %+v", second)
	}
	if second.ToolsHash != first.ToolsHash {
		t.Errorf("tools hash changed on resume")
	}
	reqs := f.Requests()
	if len(f.Rejected()) != 0 || len(reqs) != 4 {
		t.Fatalf("requests = %d rejected = %d", len(reqs), len(f.Rejected()))
	}
	var r1, r3 struct {
		Input []json.RawMessage `json:"input"`
	}
	_ = json.Unmarshal(reqs[1].Body, &r1)
	_ = json.Unmarshal(reqs[2].Body, &r3)
	for i, item := range r1.Input {
		if i >= len(r3.Input) || string(item) != string(r3.Input[i]) {
			t.Fatalf("input item %d not replayed byte for byte:\n%s\n%s", i, item, r3.Input[min(i, len(r3.Input)-1)])
		}
	}
	if !strings.Contains(string(reqs[2].Body), `"tool_search_call"`) {
		t.Errorf("search items not replayed")
	}
}
