package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
)

// A model id the provider does not serve is a 404 in the provider's words;
// the line that follows names the model and the settings to check, and a
// run that searches natively is not told to try --search client (a new
// user's typo of the model is not a search problem).
func TestPrintModelNotFoundHint(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  func(t *testing.T) []string
		model string
	}{
		{"anthropic", func(t *testing.T) []string {
			fake := anthropictest.NewServer(t)
			fake.SetHandler(func(r *anthropictest.Request) anthropictest.Reply {
				return anthropictest.Error(404, "not_found_error", "model: "+r.Model())
			})
			return []string{"--base-url", fake.URL, "--model", "claude-sonnet-4-9"}
		}, "claude-sonnet-4-9"},
		{"anthropic native search", func(t *testing.T) []string {
			fake := anthropictest.NewServer(t)
			fake.SetHandler(func(r *anthropictest.Request) anthropictest.Reply {
				return anthropictest.Error(404, "not_found_error", "model: "+r.Model())
			})
			return []string{"--base-url", fake.URL, "--model", "claude-sonnet-4-5", "--mcp-config", testMCPConfig(t), "--mcp", "tt", "--defer"}
		}, "claude-sonnet-4-5"},
		{"openai-chat", func(t *testing.T) []string {
			fake := chattest.NewServer(t)
			fake.Fail(chattest.Fault{Status: 404, Body: `{"error":{"message":"The model ` + "`gpt-9`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`})
			return []string{"--provider", "openai-chat", "--base-url", fake.BaseURL(), "--model", "gpt-9"}
		}, "gpt-9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "OPENAI_API_KEY": "k"}
			args := append([]string{"-p", "hi", "--db", filepath.Join(t.TempDir(), "a.db")}, tc.args(t)...)
			res := runAgent(t, env, args...)
			line := strings.TrimSpace(res.stderr)
			if res.code != 1 || strings.Count(line, "\n") != 0 || !strings.Contains(line, "(404)") ||
				!strings.Contains(line, `serves no model "`+tc.model+`"`) || !strings.Contains(line, "check --model") ||
				strings.Contains(line, "--search client") {
				t.Errorf("exit %d stderr %q, want exit 1 and one line naming %q and --model, without the search hint", res.code, res.stderr, tc.model)
			}
		})
	}
}
