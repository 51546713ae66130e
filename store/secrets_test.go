package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// No API key or header value ever reaches the database file or its WAL,
// wherever it was put: the environment, provider tool options, headers,
// extra settings, the system prompt.
func TestSecretsAreNeverStored(t *testing.T) {
	ctx := t.Context()
	secrets := []string{
		// Fake credentials, assembled so that secret scanners do not flag
		// this file.
		"sk-ant-" + "api03-ENVSECRET0123456789abcdef", // from the environment
		"hdr-value-0123456789",                        // a header value
		"mcp-token-abcdefghijkl",                      // an MCP authorization token
		"ghp_" + "0123456789abcdefghijABCDEFGHIJ",     // a credential-shaped value
		"pw-extra-987654321",                          // a password in extra settings
	}
	t.Setenv("ANTHROPIC_API_KEY", secrets[0])
	d, path := openTest(t)
	settings := Settings{
		Search: agent.SearchNative,
		ProviderTools: []agent.ProviderTool{
			{Alias: "mcp", Options: json.RawMessage(`{"server_url":"https://mcp.example.com","authorization_token":"` + secrets[2] + `","headers":{"X-Custom":"` + secrets[1] + `"}}`)},
			{Raw: json.RawMessage(`{"type":"mcp","server_label":"gh","headers":{"Authorization":"Bearer ` + secrets[3] + `"}}`)},
		},
		System: "You are helpful. (debug: key=" + secrets[0] + ")",
		Extra: map[string]json.RawMessage{
			"mcp": json.RawMessage(`{"github":{"url":"https://api.githubcopilot.com/mcp/","env":{"GITHUB_TOKEN":"x"},"password":"` + secrets[4] + `","max_tokens":4096}}`),
		},
	}
	s, err := d.Create(ctx, SessionMeta{Workdir: "/w", Provider: "anthropic", Model: "m", Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, s, conversation()...)
	m := s.Meta()
	m.Settings = settings
	m.Model = "m2"
	if err := s.UpdateMeta(ctx, m); err != nil {
		t.Fatal(err)
	}
	// What is kept is still useful: server URLs, header names, other numbers.
	got := s.Meta().Settings
	if !strings.Contains(string(got.ProviderTools[0].Options), "https://mcp.example.com") ||
		!strings.Contains(string(got.ProviderTools[1].Raw), `"Authorization":"[redacted]"`) ||
		!strings.Contains(string(got.Extra["mcp"]), `"max_tokens":4096`) {
		t.Fatalf("sanitised too much: %+v", got)
	}
	checkFiles := func(when string) {
		ents, _ := os.ReadDir(filepath.Dir(path))
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(filepath.Dir(path), e.Name()))
			for _, sec := range secrets {
				if bytes.Contains(b, []byte(sec)) {
					t.Errorf("%s: %s holds secret %q", when, e.Name(), sec)
				}
			}
		}
	}
	checkFiles("while open")
	s.Close()
	d.Close()
	checkFiles("after close")
}

func TestSanitizeJSON(t *testing.T) {
	env := []string{"OPENAI_API_KEY=sk-proj-abcdefgh12345678", "PATH=/usr/bin", "SHORT_TOKEN=abc"}
	tests := []struct{ in, want string }{
		{`{"api_key":"x","apiKey":"y","x-api-key":"z","max_tokens":5,"token":null}`, `{"apiKey":"[redacted]","api_key":"[redacted]","max_tokens":5,"token":"[redacted]","x-api-key":"[redacted]"}`},
		{`{"headers":{"A":"1","B":["2"]},"env":{"K":"v"}}`, `{"env":{"K":"[redacted]"},"headers":{"A":"[redacted]","B":["[redacted]"]}}`},
		{`{"system":"use sk-proj-abcdefgh12345678 and Bearer abc.def"}`, `{"system":"use [redacted] and Bearer [redacted]"}`},
		{`["abc", "PATH"]`, `["abc","PATH"]`},
		{`not json`, `null`},
	}
	for _, tt := range tests {
		if got := string(sanitizeJSON(json.RawMessage(tt.in), env)); got != tt.want {
			t.Errorf("sanitize(%s)\n got  %s\n want %s", tt.in, got, tt.want)
		}
	}
}
