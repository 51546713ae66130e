package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/azure/azuretest"
	"github.com/agent-dev/agent/providers/bedrock/bedrocktest"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
	"github.com/agent-dev/agent/providers/vertex/vertextest"
)

// The cloud providers issue's "done when": `agent -p --mcp ... --defer`
// finds and calls a deferred tool through vertex, bedrock, azure and gemini
// against their strict fakes (signatures, tokens, keys checked), with one
// tools array per conversation and no request rejected.
func TestPrintFindsAndCallsDeferredToolOnCloudProviders(t *testing.T) {
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
		{"vertex", "provider", func(t *testing.T) setup {
			f := vertextest.NewServer(t)
			f.Inner.SetScript(anthropictest.NewScript(anthropictest.Turn{Search: "weather", Call: "$found", Input: map[string]any{"city": "Oslo"}}, anthropictest.Turn{Text: "Sunny."}))
			return setup{[]string{"--provider", "vertex"},
				map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": f.ServiceAccountJSON(t), "ANTHROPIC_VERTEX_BASE_URL": f.BaseURL, "CLOUD_ML_REGION": "", "ANTHROPIC_VERTEX_PROJECT_ID": ""},
				func() [][]byte {
					var out [][]byte
					for _, r := range f.Requests() {
						out = append(out, r.Body)
					}
					return out
				}, func() int { return len(f.Rejected()) + anthropicRejected(f.Inner) }}
		}},
		{"bedrock", "provider", func(t *testing.T) setup {
			f := bedrocktest.NewServer(t)
			f.Inner.SetScript(anthropictest.NewScript(anthropictest.Turn{Search: "weather", Call: "$found", Input: map[string]any{"city": "Oslo"}}, anthropictest.Turn{Text: "Sunny."}))
			return setup{[]string{"--provider", "bedrock"},
				map[string]string{"AWS_REGION": bedrocktest.Region, "AWS_ACCESS_KEY_ID": bedrocktest.AccessKey, "AWS_SECRET_ACCESS_KEY": bedrocktest.SecretKey,
					"AWS_ENDPOINT_URL_BEDROCK_RUNTIME": f.URL, "AWS_BEARER_TOKEN_BEDROCK": "", "ANTHROPIC_BEDROCK_BASE_URL": ""},
				func() [][]byte {
					var out [][]byte
					for _, r := range f.Requests() {
						out = append(out, r.Body)
					}
					return out
				}, func() int { return len(f.Rejected()) + anthropicRejected(f.Inner) }}
		}},
		{"azure", "provider", func(t *testing.T) setup {
			f := azuretest.NewServer(t)
			f.Inner.Script(rt.Turn{rt.HostedSearch("weather forecast"), rt.Call(found, `{"city":"Oslo"}`)}, rt.Turn{rt.Text("Sunny.")})
			return setup{[]string{"--provider", "azure", "--model", "gpt-5.4"},
				map[string]string{"AZURE_OPENAI_ENDPOINT": f.URL, "AZURE_OPENAI_API_KEY": azuretest.DefaultKey},
				func() [][]byte { return responsesBodies(f.Inner.Requests()) }, f.Rejected}
		}},
		{"vertex-gemini", "client", func(t *testing.T) setup {
			f := vertextest.NewServer(t)
			f.Gemini.Script = geminitest.NewScript(geminitest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Oslo"}}, geminitest.Turn{Text: "Sunny."})
			return setup{[]string{"--provider", "vertex-gemini", "--model", "gemini-3-pro-preview"},
				map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": f.ServiceAccountJSON(t), "GOOGLE_VERTEX_BASE_URL": f.BaseURL, "GOOGLE_CLOUD_LOCATION": "", "GOOGLE_CLOUD_PROJECT": ""},
				func() [][]byte {
					var out [][]byte
					for _, r := range f.Requests() {
						out = append(out, r.Body)
					}
					return out
				}, func() int { return len(f.Rejected()) + len(f.Gemini.Rejected()) }}
		}},
		{"gemini", "client", func(t *testing.T) setup {
			f := geminitest.NewServer(t)
			f.Script = geminitest.NewScript(geminitest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Oslo"}}, geminitest.Turn{Text: "Sunny."})
			return setup{[]string{"--provider", "gemini", "--base-url", f.URL, "--model", "gemini-3-pro-preview"},
				map[string]string{"GEMINI_API_KEY": geminitest.DefaultKey},
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
			if out.Provider != tc.name {
				t.Errorf("provider = %q", out.Provider)
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

// Bad input is one line naming what to set.
func TestCloudProvidersNameWhatToSet(t *testing.T) {
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--provider", "vertex"}, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": "/nonexistent/key.json"}, "GOOGLE_APPLICATION_CREDENTIALS"},
		{[]string{"--provider", "bedrock"}, map[string]string{"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_CONFIG_FILE": "/nonexistent", "AWS_PROFILE": ""}, "AWS_REGION"},
		{[]string{"--provider", "azure"}, map[string]string{"AZURE_OPENAI_ENDPOINT": ""}, "AZURE_OPENAI_ENDPOINT"},
		{[]string{"--provider", "azure"}, map[string]string{"AZURE_OPENAI_ENDPOINT": "http://127.0.0.1:9", "AZURE_OPENAI_API_KEY": "k"}, "--model"},
		{[]string{"--provider", "gemini"}, map[string]string{"GEMINI_API_KEY": "", "GOOGLE_API_KEY": ""}, "GEMINI_API_KEY"},
	}
	for _, c := range cases {
		isolate(t)
		res := runAgent(t, c.env, append([]string{"-p", "hi", "--db", filepath.Join(t.TempDir(), "a.db")}, c.args...)...)
		if res.code != 2 || !bytes.Contains([]byte(res.stderr), []byte(c.want)) || bytes.Count([]byte(res.stderr), []byte("\n")) > 1 {
			t.Errorf("%v: exit %d, stderr %q (want one line naming %s)", c.args, res.code, res.stderr, c.want)
		}
	}
}

// #27: Bedrock without any credentials stops at start (exit 2, one line
// naming what to set), before any request, as a missing key
// does for every other provider.
func TestBedrockWithoutCredentialsFailsAtStart(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_PROFILE": "", "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_BEARER_TOKEN_BEDROCK": "",
		"AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
	} {
		t.Setenv(k, v)
	}
	db := filepath.Join(t.TempDir(), "a.db")
	res := runAgent(t, nil, "-p", "hi", "--provider", "bedrock", "--db", db)
	if res.code != 2 || !strings.Contains(res.stderr, "no AWS credentials: set AWS_ACCESS_KEY_ID") || strings.Count(res.stderr, "\n") > 1 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
}
