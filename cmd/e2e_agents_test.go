package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

// The profile's model, prompt, servers, deferral and tool list reach the
// request; `agent agents` lists it; a resume without --agent restores it.
func TestPrintWithAgentProfile(t *testing.T) {
	wd := isolate(t)
	dir := filepath.Join(wd, ".agent", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	profile := `---
description: Reviews with the weather in mind
provider: anthropic
model: claude-opus-4-5
mcp: [tt]
defer: true
tools: [tt__get_weather, tt__list_events]
max_tokens: 2000
---
You are the reviewer. Be terse.
`
	if err := os.WriteFile(filepath.Join(dir, "reviewer.md"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	// A project's profiles apply in a trusted directory only.
	if tr := runAgent(t, nil, "trust"); tr.code != 0 || !strings.Contains(tr.stdout, filepath.Join(".agent", "agents", "reviewer.md")) {
		t.Fatalf("agent trust: exit %d: %s%s", tr.code, tr.stdout, tr.stderr)
	}
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "Sunny."},
	))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	db := filepath.Join(t.TempDir(), "agent.db")
	res := runAgent(t, env, "-p", "Weather in Berlin?", "--agent", "reviewer", "--base-url", fake.URL,
		"--mcp-config", testMCPConfig(t), "--db", db, "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	out := decodePrint(t, res.stdout)
	if out.Model != "claude-opus-4-5" || out.Result != "Sunny." || len(out.ToolCalls) != 1 || out.ToolCalls[0].Name != "tt__get_weather" {
		t.Errorf("result %+v", out)
	}
	reqs := fake.Requests()
	var body struct {
		Model     string          `json:"model"`
		MaxTokens int             `json:"max_tokens"`
		System    json.RawMessage `json:"system"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "claude-opus-4-5" || body.MaxTokens != 2000 || !bytes.Contains(body.System, []byte("You are the reviewer. Be terse.")) {
		t.Errorf("request model %s, max_tokens %d, system %s", body.Model, body.MaxTokens, body.System)
	}
	tl := reqs[0].Tools()
	if !bytes.Contains(tl, []byte(`"tt__get_weather"`)) || !bytes.Contains(tl, []byte(`"defer_loading":true`)) {
		t.Errorf("the profile's server is not connected with its tools deferred: %s", tl)
	}
	for _, gone := range []string{"tt__send_email", "tt__convert_currency"} {
		if bytes.Contains(tl, []byte(gone)) {
			t.Errorf("%s is not on the profile's tool list but was offered: %s", gone, tl)
		}
	}

	ls := runAgent(t, env, "agents", "--json")
	if ls.code != 0 {
		t.Fatalf("agents: exit %d: %s", ls.code, ls.stderr)
	}
	var rep app.AgentsList
	if err := json.Unmarshal([]byte(ls.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Agents) != 1 || rep.Agents[0].Name != "reviewer" || rep.Agents[0].Source != "project" || rep.Agents[0].Model != "claude-opus-4-5" {
		t.Errorf("agents --json: %+v", rep)
	}
	if txt := runAgent(t, env, "agents"); !strings.Contains(txt.stdout, "reviewer") || !strings.Contains(txt.stdout, "project .agent/agents/reviewer.md") {
		t.Errorf("agents: %s", txt.stdout)
	}

	// Resume without --agent: the profile comes back with the session.
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Still here."}))
	res2 := runAgent(t, env, "-p", "Anything else?", "--resume", out.SessionID, "--base-url", fake.URL,
		"--mcp-config", testMCPConfig(t), "--db", db, "--output-format", "json")
	if res2.code != 0 {
		t.Fatalf("resume: exit %d: %s", res2.code, res2.stderr)
	}
	all := fake.Requests()
	if last := all[len(all)-1]; !bytes.Equal(last.Tools(), tl) || !bytes.Contains(last.Body, []byte("You are the reviewer.")) {
		t.Errorf("resumed request does not carry the profile:\n%s", last.Body)
	}

	bad := runAgent(t, env, "-p", "x", "--agent", "nobody")
	if bad.code != 2 || !strings.Contains(bad.stderr, `no agent profile "nobody": the profiles are reviewer`) {
		t.Errorf("unknown profile: exit %d, %s", bad.code, bad.stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.md"), []byte("---\nmodel: x\nmax_tokens: many\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := runAgent(t, env, "-p", "x", "--agent", "broken", "--trust") // the files changed since agent trust
	if broken.code != 2 || !strings.Contains(broken.stderr, "broken.md:3: agent profile broken: field max_tokens: must be a positive whole number") ||
		strings.Count(strings.TrimSpace(broken.stderr), "\n") != 0 {
		t.Errorf("bad front matter: exit %d, %q", broken.code, broken.stderr)
	}
}

// `agent sessions compact ID` shortens what is sent; the next turn calls
// the tool found before the compaction with no new search, and nothing is
// rejected; `agent sessions show` still prints every message.
func TestSessionsCompact(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "It is sunny in Berlin."},
	))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	db := filepath.Join(t.TempDir(), "agent.db")
	mcp := testMCPConfig(t)
	res := runAgent(t, env, "-p", "What's the weather in Berlin?", "--base-url", fake.URL,
		"--mcp-config", mcp, "--mcp", "tt", "--defer", "--db", db, "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	id := decodePrint(t, res.stdout).SessionID
	before := fake.Requests()[1].Body

	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "The user asked for Berlin's weather; tt__get_weather said sunny."}))
	cp := runAgent(t, env, "sessions", "compact", id, "--base-url", fake.URL, "--mcp-config", mcp, "--db", db)
	if cp.code != 0 {
		t.Fatalf("compact: exit %d: %s", cp.code, cp.stderr)
	}
	if !strings.Contains(cp.stdout, "Compacted session "+id) || !strings.Contains(cp.stdout, "tokens (estimated); 1 found tools stay loaded") ||
		!strings.Contains(cp.stdout, "The store keeps all 4 messages") {
		t.Errorf("compact output:\n%s", cp.stdout)
	}

	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "tt__get_weather", Input: map[string]any{"city": "Paris"}},
		anthropictest.Turn{Text: "Paris too."},
	))
	res2 := runAgent(t, env, "-p", "And Paris?", "--resume", id, "--base-url", fake.URL, "--mcp-config", mcp, "--db", db, "--output-format", "json")
	if res2.code != 0 {
		t.Fatalf("after compaction: exit %d: %s", res2.code, res2.stderr)
	}
	out2 := decodePrint(t, res2.stdout)
	if out2.Result != "Paris too." || len(out2.Searches) != 0 || len(out2.ToolCalls) != 1 || out2.ToolCalls[0].IsError {
		t.Errorf("after compaction: %+v", out2)
	}
	reqs := fake.Requests()
	next := reqs[len(reqs)-2].Body
	for _, r := range reqs {
		if r.Rejection != "" {
			t.Errorf("rejected: %s", r.Rejection)
		}
	}
	if len(next) >= len(before) || !bytes.Contains(next, []byte("call_compact_1")) || bytes.Contains(next, []byte("server_tool_use")) ||
		!bytes.Contains(next, []byte("Berlin's weather")) {
		t.Errorf("the request after compaction (%d bytes, before %d) is not the compacted form:\n%s", len(next), len(before), next)
	}
	show := runAgent(t, env, "sessions", "show", id, "--db", db)
	if !strings.Contains(show.stdout, "What's the weather in Berlin?") || !strings.Contains(show.stdout, "── compacted (1)") || !strings.Contains(show.stdout, "Compactions: 1 (requests send a summary of the first 4 messages") || !strings.Contains(show.stdout, "And Paris?") {
		t.Errorf("sessions show:\n%s", show.stdout)
	}
}

// The compaction's "done when" from the shell, on each search form: the
// turn after `agent sessions compact` calls the tool found before it with
// no new search, and no strict fake rejects a request.
func TestSessionsCompactEveryForm(t *testing.T) {
	const found = "tt__get_weather"
	type form struct {
		args   []string
		env    map[string]string
		script func(phase int) // 0: search and call, 1: the summary, 2: call again
		bodies func() [][]byte
		reject func() int
	}
	cases := []struct {
		name string
		make func(t *testing.T) form
	}{
		{"anthropic native", func(t *testing.T) form {
			f := anthropictest.NewServer(t)
			return form{[]string{"--provider", "anthropic", "--base-url", f.URL}, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey},
				func(phase int) {
					switch phase {
					case 0:
						f.SetScript(anthropictest.NewScript(anthropictest.Turn{Search: "weather", Call: "$found", Input: map[string]any{"city": "Oslo"}}, anthropictest.Turn{Text: "Sunny."}))
					case 1:
						f.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Oslo was sunny per tt__get_weather."}))
					default:
						f.SetScript(anthropictest.NewScript(anthropictest.Turn{Call: found, Input: map[string]any{"city": "Bergen"}}, anthropictest.Turn{Text: "Rainy."}))
					}
				}, func() [][]byte { return anthropicBodies(f) }, func() int { return anthropicRejected(f) }}
		}},
		{"openai hosted", func(t *testing.T) form {
			f := rt.NewServer(t)
			return form{[]string{"--provider", "openai", "--base-url", f.URL, "--model", "gpt-5.4"}, map[string]string{"OPENAI_API_KEY": f.APIKey},
				func(phase int) {
					switch phase {
					case 0:
						f.Script(rt.Turn{rt.HostedSearch("weather forecast"), rt.Call(found, `{"city":"Oslo"}`)}, rt.Turn{rt.Text("Sunny.")})
					case 1:
						f.Script(rt.Turn{rt.Text("Oslo was sunny per tt__get_weather.")})
					default:
						f.Script(rt.Turn{rt.Call(found, `{"city":"Bergen"}`)}, rt.Turn{rt.Text("Rainy.")})
					}
				}, func() [][]byte { return responsesBodies(f.Requests()) }, func() int { return len(f.Rejected()) }}
		}},
		{"chat completions client", func(t *testing.T) form {
			f := chattest.NewServer(t)
			return form{[]string{"--provider", "ollama", "--base-url", f.URL + "/v1", "--model", "qwen3"}, nil,
				func(phase int) {
					switch phase {
					case 0:
						f.Script(chattest.Calls(chattest.SearchCall("call_1", "weather forecast", 3)),
							chattest.Calls(chattest.WrappedCall("call_2", found, map[string]any{"city": "Oslo"})), chattest.Text("Sunny."))
					case 1:
						f.Script(chattest.Text("Oslo was sunny per tt__get_weather."))
					default:
						f.Script(chattest.Calls(chattest.WrappedCall("call_3", found, map[string]any{"city": "Bergen"})), chattest.Text("Rainy."))
					}
				}, func() [][]byte {
					var out [][]byte
					for _, r := range f.Requests() {
						out = append(out, r.Body)
					}
					return out
				}, func() int { return len(f.Rejected()) }}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			f := tc.make(t)
			common := append([]string{"--mcp-config", testMCPConfig(t), "--db", filepath.Join(t.TempDir(), "a.db")}, f.args...)
			f.script(0)
			res := runAgent(t, f.env, append([]string{"-p", "Weather in Oslo?", "--mcp", "tt", "--defer", "--output-format", "json"}, common...)...)
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			id := decodePrint(t, res.stdout).SessionID
			before := f.bodies()
			lastBefore := before[len(before)-1]

			f.script(1)
			cp := runAgent(t, f.env, append([]string{"sessions", "compact", id}, common...)...)
			if cp.code != 0 || !strings.Contains(cp.stdout, "1 found tools stay loaded") {
				t.Fatalf("compact: exit %d\n%s\n%s", cp.code, cp.stdout, cp.stderr)
			}

			f.script(2)
			res2 := runAgent(t, f.env, append([]string{"-p", "And Bergen?", "--resume", id, "--output-format", "json"}, common...)...)
			if res2.code != 0 {
				t.Fatalf("after compaction: exit %d: %s", res2.code, res2.stderr)
			}
			out := decodePrint(t, res2.stdout)
			if out.Result != "Rainy." || len(out.Searches) != 0 || len(out.ToolCalls) != 1 || out.ToolCalls[0].Name != found || out.ToolCalls[0].IsError {
				t.Errorf("after compaction: %+v", out)
			}
			if n := f.reject(); n != 0 {
				t.Errorf("the fake rejected %d requests", n)
			}
			all := f.bodies()
			next := all[len(before)+1] // after the summary request
			t.Logf("last request before compaction %d bytes, first after %d", len(lastBefore), len(next))
			if len(next) >= len(lastBefore) || !bytes.Contains(next, []byte("Oslo was sunny per tt__get_weather.")) || bytes.Contains(next, []byte("Weather in Oslo?")) {
				t.Errorf("the first request after compaction (%d bytes; the last before, %d) is not the compacted form:\n%s", len(next), len(lastBefore), next)
			}
			if !bytes.Equal(toolsOf(t, next), toolsOf(t, before[0])) {
				t.Errorf("the tools array changed with the compaction")
			}
		})
	}
}

// #26: a compaction's summary request is not the conversation's last
// request: when it went out with other tools (a server's list differed
// then, or it had none), resuming with the conversation's own tools does
// not warn that they changed.
func TestResumeAfterCompactionDoesNotWarnOfUnchangedTools(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "It is sunny in Berlin."},
	))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	db := filepath.Join(t.TempDir(), "agent.db")
	mcp := testMCPConfig(t)
	res := runAgent(t, env, "-p", "What's the weather in Berlin?", "--base-url", fake.URL,
		"--mcp-config", mcp, "--mcp", "tt", "--defer", "--db", db, "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	id := decodePrint(t, res.stdout).SessionID

	// The compaction runs while the server lists one more tool.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(t.TempDir(), "extra")
	if err := os.WriteFile(extra, []byte("book_flight"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := writeJSON(t, "mcp.json", map[string]any{"mcpServers": map[string]any{
		"tt": map[string]any{"command": exe, "env": map[string]string{"AGENT_TEST_MCP_SERVER": "1", "AGENT_TEST_MCP_EXTRA": extra}},
	}})
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "The user asked for Berlin's weather; it was sunny."}))
	if cp := runAgent(t, env, "sessions", "compact", id, "--base-url", fake.URL, "--mcp-config", other, "--db", db); cp.code != 0 {
		t.Fatalf("compact: exit %d: %s", cp.code, cp.stderr)
	}

	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Paris too."}))
	res2 := runAgent(t, env, "-p", "And Paris?", "--resume", id, "--base-url", fake.URL, "--mcp-config", mcp, "--db", db, "--output-format", "json")
	if res2.code != 0 {
		t.Fatalf("after compaction: exit %d: %s", res2.code, res2.stderr)
	}
	if w := decodePrint(t, res2.stdout).Warnings; len(w) != 0 {
		t.Errorf("resuming with the conversation's own tools warned: %q", w)
	}
	// A real change still warns.
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Rome too."}))
	res3 := runAgent(t, env, "-p", "And Rome?", "--resume", id, "--base-url", fake.URL, "--mcp-config", other, "--db", db, "--output-format", "json")
	if res3.code != 0 {
		t.Fatalf("third run: exit %d: %s", res3.code, res3.stderr)
	}
	// One line for the server's changed definition (#27), one for the cache.
	if w := strings.Join(decodePrint(t, res3.stdout).Warnings, "\n"); !strings.Contains(w, "tools changed") || !strings.Contains(w, "MCP server tt changed since this session used it") {
		t.Errorf("a real change of the tools: warnings %q", w)
	}
}
