package cmd

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

// toolsOf extracts the tools array of a logged request body.
func toolsOf(t *testing.T, body []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return m["tools"]
}

// The providers issue's "done when": the same command finds and calls a
// deferred tool on every provider and search form, each conversation's
// requests carry one tools array, and no fake rejects a request.
func TestPrintFindsAndCallsDeferredToolOnEveryProvider(t *testing.T) {
	const found = "tt__get_weather"
	type setup struct {
		args   []string
		env    map[string]string
		bodies func() [][]byte
		reject func() int
	}
	cases := []struct {
		name  string
		where string
		setup func(t *testing.T) setup
	}{
		{"anthropic native", "provider", func(t *testing.T) setup {
			f := anthropictest.NewServer(t)
			f.SetScript(anthropictest.NewScript(anthropictest.Turn{Search: "weather", Call: "$found", Input: map[string]any{"city": "Oslo"}}, anthropictest.Turn{Text: "Sunny."}))
			return setup{[]string{"--provider", "anthropic", "--base-url", f.URL}, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey},
				func() [][]byte { return anthropicBodies(f) }, func() int { return anthropicRejected(f) }}
		}},
		{"anthropic client", "client", func(t *testing.T) setup {
			f := anthropictest.NewServer(t)
			f.SetScript(anthropictest.NewScript(anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Oslo"}}, anthropictest.Turn{Text: "Sunny."}))
			return setup{[]string{"--provider", "anthropic", "--base-url", f.URL, "--search", "client"}, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey},
				func() [][]byte { return anthropicBodies(f) }, func() int { return anthropicRejected(f) }}
		}},
		{"openai hosted", "provider", func(t *testing.T) setup {
			f := rt.NewServer(t)
			f.Script(rt.Turn{rt.HostedSearch("weather forecast"), rt.Call(found, `{"city":"Oslo"}`)}, rt.Turn{rt.Text("Sunny.")})
			return setup{[]string{"--provider", "openai", "--base-url", f.URL, "--model", "gpt-5.4"}, map[string]string{"OPENAI_API_KEY": f.APIKey},
				func() [][]byte { return responsesBodies(f.Requests()) }, func() int { return len(f.Rejected()) }}
		}},
		{"openai client", "client", func(t *testing.T) setup {
			f := rt.NewServer(t)
			f.Script(rt.Turn{rt.ClientSearch("weather forecast")}, rt.Turn{rt.Call(found, `{"city":"Oslo"}`)}, rt.Turn{rt.Text("Sunny.")})
			return setup{[]string{"--provider", "openai", "--base-url", f.URL, "--model", "gpt-5.4", "--search", "client"}, map[string]string{"OPENAI_API_KEY": f.APIKey},
				func() [][]byte { return responsesBodies(f.Requests()) }, func() int { return len(f.Rejected()) }}
		}},
		{"chat completions client", "client", func(t *testing.T) setup {
			f := chattest.NewServer(t)
			f.Script(chattest.Calls(chattest.SearchCall("call_1", "weather forecast", 3)),
				chattest.Calls(chattest.WrappedCall("call_2", found, map[string]any{"city": "Oslo"})), chattest.Text("Sunny."))
			return setup{[]string{"--provider", "ollama", "--base-url", f.URL + "/v1", "--model", "qwen3"}, nil,
				func() [][]byte {
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
			s := tc.setup(t)
			args := append([]string{"-p", "Weather in Oslo?", "--mcp-config", testMCPConfig(t), "--mcp", "tt", "--defer",
				"--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "json"}, s.args...)
			res := runAgent(t, s.env, args...)
			if res.code != 0 {
				t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
			}
			out := decodePrint(t, res.stdout)
			if out.Result != "Sunny." {
				t.Errorf("result = %q", out.Result)
			}
			if len(out.Searches) != 1 || out.Searches[0].Where != tc.where || !contains(out.Searches[0].Tools, found) {
				t.Errorf("searches = %+v", out.Searches)
			}
			if len(out.ToolCalls) != 1 || out.ToolCalls[0].Name != found || out.ToolCalls[0].IsError {
				t.Errorf("tool calls = %+v", out.ToolCalls)
			}
			if n := s.reject(); n != 0 {
				t.Errorf("the fake rejected %d requests", n)
			}
			bodies := s.bodies()
			if len(bodies) < 2 {
				t.Fatalf("requests = %d", len(bodies))
			}
			first := toolsOf(t, bodies[0])
			for i, b := range bodies[1:] {
				if !bytes.Equal(toolsOf(t, b), first) {
					t.Errorf("request %d: tools array differs from the first", i+2)
				}
			}
		})
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func anthropicBodies(f *anthropictest.Server) [][]byte {
	var out [][]byte
	for _, r := range f.Requests() {
		out = append(out, r.Body)
	}
	return out
}

func anthropicRejected(f *anthropictest.Server) int {
	n := 0
	for _, r := range f.Requests() {
		if r.Rejection != "" {
			n++
		}
	}
	return n
}

func responsesBodies(rs []rt.Request) [][]byte {
	var out [][]byte
	for _, r := range rs {
		out = append(out, r.Body)
	}
	return out
}
