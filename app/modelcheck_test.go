package app

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/models"
)

// #27: /model with a typo is refused with the nearest known ids; ids a
// provider without a catalog serves, and ids the config declares, pass.
func TestKnownModel(t *testing.T) {
	t.Parallel()
	table, err := (*models.Table)(nil).With(map[string]models.Override{"claude-next-preview": {Like: "claude-sonnet-4-5"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		provider, model string
		want            string // "" passes; else a part of the error
	}{
		{"anthropic", "claude-sonnet-4-5", ""},
		{"anthropic", "claude-sonnet-4-5-20250929", ""},
		{"anthropic", "claude-next-preview", ""},
		{"anthropic", "claude-sonet-4-5", `did you mean claude-sonnet-4`},
		{"openai", "gtp-4o", "did you mean gpt-4o"},
		{"openai", "totally-unrelated", ""},
		{"anthropic", "claude-sonnet-5", ""},
		{"gemini", "gemini-3-pro-preview", ""},
		{"openai", "gpt-5.2", ""},
		{"ollama", "qwen3:8b", ""},
		{"bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", ""},
		{"azure", "my-deployment", ""},
		{"openrouter", "some/new-model", ""},
	}
	for _, c := range cases {
		err := knownModel(c.provider, c.model, table)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s on %s refused: %v", c.model, c.provider, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s on %s: error %v, want it to contain %q", c.model, c.provider, err, c.want)
		}
	}
}
