package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

// #15's "done when": agent -p completes a deferred search-and-call
// conversation with no 400 from the strict fakes on models and endpoints
// whose rules differ: Claude Opus 4.1 (no tool search: function form),
// gpt-5-chat-latest (no encrypted reasoning), Gemini 3 on the compatible
// endpoint (thought signatures), DeepSeek thinking (reasoning_content);
// --effort high with thinking replayed; --max-tokens and the per-model
// default on the wire.
func TestPrintFidelity(t *testing.T) {
	const found = "tt__get_weather"
	type setup struct {
		args   []string
		env    map[string]string
		bodies func() [][]byte
		reject func() []string
	}
	anth := func(f *anthropictest.Server, args ...string) setup {
		return setup{append([]string{"--provider", "anthropic", "--base-url", f.URL}, args...), map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey},
			func() [][]byte {
				var out [][]byte
				for _, r := range f.Requests() {
					out = append(out, r.Body)
				}
				return out
			}, func() []string {
				var out []string
				for _, r := range f.Requests() {
					if r.Status != 200 {
						out = append(out, r.Rejection)
					}
				}
				return out
			}}
	}
	resp := func(f *rt.Server, args ...string) setup {
		return setup{append([]string{"--provider", "openai", "--base-url", f.URL}, args...), map[string]string{"OPENAI_API_KEY": f.APIKey},
			func() [][]byte { return responsesBodies(f.Requests()) }, func() []string {
				var out []string
				for _, r := range f.Rejected() {
					out = append(out, r.Error)
				}
				return out
			}}
	}
	chat := func(f *chattest.Server, env map[string]string, args ...string) setup {
		return setup{append([]string{"--base-url", f.BaseURL()}, args...), env,
			func() [][]byte {
				var out [][]byte
				for _, r := range f.Requests() {
					out = append(out, r.Body)
				}
				return out
			}, func() []string {
				var out []string
				for _, r := range f.Rejected() {
					out = append(out, r.Error)
				}
				return out
			}}
	}
	chatScript := func(f *chattest.Server) {
		f.Script(chattest.Calls(chattest.SearchCall("call_1", "weather forecast", 3)),
			chattest.Turn{Reasoning: "I have the tool now.", Calls: []chattest.Call{chattest.WrappedCall("call_2", found, map[string]any{"city": "Oslo"})}},
			chattest.Text("Sunny."))
	}
	cases := []struct {
		name  string
		setup func(t *testing.T) setup
		// every request body contains each of want and none of not.
		want, not []string
		// the last request body contains each of last.
		last []string
	}{
		{"claude-opus-4-1 function-form search", func(t *testing.T) setup {
			f := anthropictest.NewServer(t)
			f.SetScript(anthropictest.NewScript(anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Oslo"}}, anthropictest.Turn{Text: "Sunny."}))
			return anth(f, "--model", "claude-opus-4-1")
		}, []string{`"max_tokens":32000`, `"name":"tool_call"`}, []string{"defer_loading", "tool_reference"}, nil},
		{"claude --effort high with thinking replayed", func(t *testing.T) setup {
			f := anthropictest.NewServer(t)
			f.SetScript(anthropictest.NewScript(anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Oslo"}}, anthropictest.Turn{Text: "Sunny."}))
			return anth(f, "--model", "claude-sonnet-4-5", "--effort", "high")
		}, []string{`"thinking":{"type":"enabled","budget_tokens":16384}`, `"max_tokens":32000`}, nil, []string{`"type":"thinking"`, `"signature":"`}},
		{"claude-opus-4-6 --effort max --max-tokens", func(t *testing.T) setup {
			f := anthropictest.NewServer(t)
			f.SetScript(anthropictest.NewScript(anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Oslo"}}, anthropictest.Turn{Text: "Sunny."}))
			return anth(f, "--model", "claude-opus-4-6", "--effort", "max", "--max-tokens", "20000")
		}, []string{`"max_tokens":20000`, `"thinking":{"type":"adaptive"},"output_config":{"effort":"max"}`}, nil, []string{`"type":"thinking"`}},
		{"gpt-5-chat-latest", func(t *testing.T) setup {
			f := rt.NewServer(t)
			f.Script(rt.Turn{rt.Call("tool_search", `{"query":"weather forecast"}`)}, rt.Turn{rt.Call("tool_call", `{"name":"`+found+`","arguments":{"city":"Oslo"}}`)}, rt.Turn{rt.Text("Sunny.")})
			return resp(f, "--model", "gpt-5-chat-latest")
		}, []string{`"max_output_tokens":16384`}, []string{"encrypted_content", `"reasoning"`}, nil},
		{"gpt-5.4 --effort high with reasoning replayed", func(t *testing.T) setup {
			f := rt.NewServer(t)
			f.Script(rt.Turn{rt.Reasoning(), rt.HostedSearch("weather forecast"), rt.Call(found, `{"city":"Oslo"}`)}, rt.Turn{rt.Text("Sunny.")})
			return resp(f, "--model", "gpt-5.4", "--effort", "high")
		}, []string{`"reasoning":{"effort":"high","summary":"auto"}`, `"include":["reasoning.encrypted_content"]`, `"max_output_tokens":64000`}, nil, []string{`"type":"reasoning"`, `"encrypted_content":"enc_`}},
		{"gemini-3-pro-preview compatible endpoint", func(t *testing.T) setup {
			f := chattest.NewServer(t)
			chatScript(f)
			return chat(f, map[string]string{"GEMINI_API_KEY": "k"}, "--provider", "gemini-openai", "--model", "gemini-3-pro-preview", "--effort", "high")
		}, []string{`"reasoning_effort":"high"`, `"max_tokens":32768`}, nil, []string{`"extra_content":{"google":{"thought_signature":"sig_call_1"}}`}},
		{"deepseek thinking", func(t *testing.T) setup {
			f := chattest.NewServer(t)
			chatScript(f)
			return chat(f, map[string]string{"DEEPSEEK_API_KEY": "k"}, "--provider", "deepseek", "--model", "deepseek-v4-flash", "--effort", "max")
		}, []string{`"max_tokens":64000`, `"thinking":{"type":"enabled"},"reasoning_effort":"max"`}, nil, []string{`"reasoning_content":""`, `"reasoning_content":"I have the tool now."`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			s := tc.setup(t)
			args := append([]string{"-p", "Weather in Oslo?", "--mcp-config", testMCPConfig(t), "--mcp", "tt", "--defer",
				"--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "json"}, s.args...)
			res := runAgent(t, s.env, args...)
			if res.code != 0 {
				t.Fatalf("exit %d\nstderr: %s\nstdout: %s\nrejected: %q", res.code, res.stderr, res.stdout, s.reject())
			}
			if r := s.reject(); len(r) != 0 {
				t.Fatalf("the fake rejected: %q", r)
			}
			out := decodePrint(t, res.stdout)
			if out.Result != "Sunny." || len(out.ToolCalls) != 1 || out.ToolCalls[0].Name != found || out.ToolCalls[0].IsError {
				t.Errorf("result %q, tool calls %+v", out.Result, out.ToolCalls)
			}
			bodies := s.bodies()
			for i, b := range bodies {
				for _, w := range tc.want {
					if !bytes.Contains(b, []byte(w)) {
						t.Errorf("request %d lacks %s: %s", i+1, w, b)
					}
				}
				for _, n := range tc.not {
					if bytes.Contains(b, []byte(n)) {
						t.Errorf("request %d carries %s: %s", i+1, n, b)
					}
				}
			}
			for _, w := range tc.last {
				if !bytes.Contains(bodies[len(bodies)-1], []byte(w)) {
					t.Errorf("last request lacks %s: %s", w, bodies[len(bodies)-1])
				}
			}
		})
	}
}

// An answer cut at the output limit is kept, with a warning on stderr and
// stop_reason max_tokens in the JSON.
func TestPrintCutAnswerMarked(t *testing.T) {
	isolate(t)
	f := anthropictest.NewServer(t)
	f.Enqueue(anthropictest.Reply{Content: []json.RawMessage{anthropictest.Text("The first half")}, StopReason: "max_tokens"})
	res := runAgent(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}, "-p", "Write an essay.",
		"--provider", "anthropic", "--base-url", f.URL, "--max-tokens", "10", "--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	out := decodePrint(t, res.stdout)
	if out.Result != "The first half" || out.StopReason != "max_tokens" || !strings.Contains(res.stderr, "cut at the output limit of 10 tokens") {
		t.Errorf("result %q stop %q stderr %q", out.Result, out.StopReason, res.stderr)
	}
	if b := f.Requests()[0].Body; !bytes.Contains(b, []byte(`"max_tokens":10`)) {
		t.Errorf("--max-tokens not on the wire: %s", b)
	}
}

// A catalog with one invalid schema: that tool is quarantined (never sent,
// a warning naming it and the problem, listed by agent tools) and the
// deferred search-and-call conversation goes through without a 400.
func TestPrintInvalidSchemaQuarantined(t *testing.T) {
	isolate(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"tt": map[string]any{"command": exe, "env": map[string]string{"AGENT_TEST_MCP_SERVER": "1", "AGENT_TEST_MCP_BAD_SCHEMA": "1"}},
	}})
	mcpCfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(mcpCfg, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	f := anthropictest.NewServer(t)
	f.SetScript(anthropictest.NewScript(anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Oslo"}}, anthropictest.Turn{Text: "Sunny."}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	res := runAgent(t, env, "-p", "Weather in Oslo?", "--provider", "anthropic", "--base-url", f.URL, "--mcp-config", mcpCfg, "--mcp", "tt", "--defer",
		"--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	out := decodePrint(t, res.stdout)
	if out.Result != "Sunny." {
		t.Errorf("result %q", out.Result)
	}
	warned := false
	for _, w := range out.Warnings {
		warned = warned || strings.Contains(w, "tt__broken_report") && strings.Contains(w, `"objekt"`)
	}
	if !warned || !strings.Contains(res.stderr, "tt__broken_report") {
		t.Errorf("no warning naming the tool and the problem: %q / %s", out.Warnings, res.stderr)
	}
	for _, r := range f.Requests() {
		if r.Status != 200 {
			t.Fatalf("rejected: %s", r.Rejection)
		}
		if bytes.Contains(r.Body, []byte("broken_report")) {
			t.Fatalf("the quarantined tool was sent: %s", r.Body)
		}
	}
	tl := runAgent(t, env, "tools", "--json", "--mcp-config", mcpCfg, "--mcp", "tt")
	if tl.code != 0 || !strings.Contains(tl.stdout, `"quarantined"`) || !strings.Contains(tl.stdout, "tt__broken_report") {
		t.Errorf("agent tools does not list the quarantined tool (exit %d): %s %s", tl.code, tl.stdout, tl.stderr)
	}
}

// agent models shows what the table says, the config's entries applied.
func TestModelsCommand(t *testing.T) {
	isolate(t)
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"models":{"prod-assistant":{"like":"gpt-5.4"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	res := runAgent(t, nil, "models", "--config", cfg, "--provider", "azure", "--json", "prod-assistant", "gpt-5-chat-latest", "mystery-model")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(res.stdout), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("%v: %s", err, res.stdout)
	}
	if rows[0]["native_search"] != true || rows[0]["known"] != true || rows[1]["encrypted_reasoning"] != false || rows[2]["known"] != false {
		t.Errorf("rows = %v", rows)
	}
	if txt := runAgent(t, nil, "models", "claude-opus-4-1"); txt.code != 0 || !strings.Contains(txt.stdout, "tool search") || !strings.Contains(txt.stdout, "32000") {
		t.Errorf("text: %d %s %s", txt.code, txt.stdout, txt.stderr)
	}
}
