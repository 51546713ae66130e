package app

import (
	"strings"
	"testing"
)

// What a request costs and which models a provider refuses come from the
// providers' descriptors: local servers and the demo cost nothing, a
// vendor's own API refuses another family's model naming the provider
// that serves it, platforms and aggregators refuse nothing.
func TestPriceAndServedByFromDescriptors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		provider, model string
		free, priced    bool
	}{
		{"ollama", "qwen3", true, true},
		{"lmstudio", "anything", true, true},
		{"demo", "scripted", true, true},
		{"openrouter", "qwen3", false, false},
		{"bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", false, true},
		{"anthropic", "claude-sonnet-4-5", false, true},
	} {
		p, ok := Price(c.provider, c.model)
		if ok != c.priced || (ok && (p.Input == 0) != c.free) {
			t.Errorf("Price(%s, %s) = %+v, %v", c.provider, c.model, p, ok)
		}
	}
	for _, c := range []struct{ provider, model, want string }{
		{"gemini", "claude-sonnet-4-5", "claude-sonnet-4-5 is an anthropic model, which gemini does not serve: use /model anthropic:claude-sonnet-4-5"},
		{"deepseek", "gpt-4o", "gpt-4o is an openai model, which deepseek does not serve: use /model openai:gpt-4o"},
		{"openai", "gemini-2.5-pro", "gemini-2.5-pro is a google model"},
		{"openai", "deepseek-chat", "/model deepseek:deepseek-chat"},
		{"bedrock", "gpt-4o", ""},
		{"openrouter", "claude-sonnet-4-5", ""},
		{"ollama", "gemini-2.5-pro", ""},
	} {
		err := servedBy(c.provider, c.model)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("servedBy(%s, %s) = %v, want %q", c.provider, c.model, err, c.want)
		}
	}
	if err := CheckProvider("nope"); err == nil || ExitCode(err) != 2 || !strings.Contains(err.Error(), `unknown provider "nope": use one of anthropic, azure,`) {
		t.Errorf("CheckProvider(nope) = %v", err)
	}
	if err := CheckProvider("vertex-gemini"); err != nil {
		t.Errorf("CheckProvider(vertex-gemini) = %v", err)
	}
}
