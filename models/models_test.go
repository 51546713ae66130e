package models

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLookupSpellings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		provider, model            string
		family                     string
		native, deferLoad, encrypt bool
		thinking                   ThinkingKind
		reasoning                  ReasoningKind
		maxOut, ctx                int
		dialect                    Dialect
	}{
		{"anthropic", "claude-sonnet-4-5-20250929", "anthropic", true, true, false, ThinkingBudget, ReasoningThinking, 64_000, 200_000, DialectJSONSchema},
		{"bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic", true, true, false, ThinkingBudget, ReasoningThinking, 64_000, 200_000, DialectJSONSchema},
		{"bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic", true, true, false, ThinkingBudget, ReasoningThinking, 64_000, 200_000, DialectJSONSchema},
		{"bedrock", "global.anthropic.claude-opus-4-6-v1", "anthropic", true, true, false, ThinkingAdaptive, ReasoningThinking, 128_000, 1_000_000, DialectJSONSchema},
		{"anthropic", "claude-sonnet-4-6", "anthropic", true, true, false, ThinkingAdaptive, ReasoningThinking, 128_000, 1_000_000, DialectJSONSchema},
		{"anthropic", "claude-opus-4-5-20251101", "anthropic", true, true, false, ThinkingEffort, ReasoningThinking, 64_000, 200_000, DialectJSONSchema},
		{"anthropic", "claude-haiku-5-5", "anthropic", true, true, false, ThinkingAdaptive, ReasoningThinking, 128_000, 1_000_000, DialectJSONSchema},
		{"anthropic", "claude-sonnet-5-5", "anthropic", true, true, false, ThinkingAdaptive, ReasoningThinking, 128_000, 1_000_000, DialectJSONSchema},
		{"vertex", "claude-sonnet-4-5@20250929", "anthropic", true, true, false, ThinkingBudget, ReasoningThinking, 64_000, 200_000, DialectJSONSchema},
		{"openrouter", "anthropic/claude-sonnet-4.5", "anthropic", true, true, false, ThinkingBudget, ReasoningThinking, 64_000, 200_000, DialectJSONSchema},
		{"anthropic", "claude-opus-4-1", "anthropic", false, false, false, ThinkingBudget, ReasoningThinking, 32_000, 200_000, DialectJSONSchema},
		{"anthropic", "claude-opus-4-1-20250805", "anthropic", false, false, false, ThinkingBudget, ReasoningThinking, 32_000, 200_000, DialectJSONSchema},
		{"anthropic", "claude-3-5-sonnet-20241022", "anthropic", false, false, false, ThinkingNone, ReasoningNone, 8192, 200_000, DialectJSONSchema},
		{"anthropic", "claude-3-haiku-20240307", "anthropic", false, false, false, ThinkingNone, ReasoningNone, 4096, 200_000, DialectJSONSchema},
		{"anthropic", "claude-3-7-sonnet-latest", "anthropic", false, false, false, ThinkingBudget, ReasoningThinking, 64_000, 200_000, DialectJSONSchema},
		{"anthropic", "claude-haiku-4-5", "anthropic", true, true, false, ThinkingBudget, ReasoningThinking, 64_000, 200_000, DialectJSONSchema},
		{"anthropic", "claude-opus-4-7", "anthropic", true, true, false, ThinkingAdaptive, ReasoningThinking, 128_000, 1_000_000, DialectJSONSchema},
		{"anthropic", "claude-sonnet-5", "anthropic", true, true, false, ThinkingAdaptive, ReasoningThinking, 128_000, 1_000_000, DialectJSONSchema},
		{"anthropic", "claude-fable-5-1", "anthropic", true, true, false, ThinkingAdaptive, ReasoningThinking, 128_000, 1_000_000, DialectJSONSchema},
		{"anthropic", "glm-4.6", "", false, false, false, ThinkingNone, ReasoningNone, 8192, 200_000, DialectJSONSchema},
		{"openai", "gpt-5", "openai", false, false, true, ThinkingEffort, ReasoningEffort, 128_000, 400_000, DialectJSONSchema},
		{"openai", "gpt-5-chat-latest", "openai", false, false, false, ThinkingNone, ReasoningNone, 16_384, 128_000, DialectJSONSchema},
		{"openai", "gpt-5.1-chat-latest", "openai", false, false, false, ThinkingNone, ReasoningNone, 16_384, 128_000, DialectJSONSchema},
		{"openai", "gpt-5.4", "openai", true, true, true, ThinkingEffort, ReasoningEffort, 128_000, 1_050_000, DialectJSONSchema},
		{"openai", "gpt-5.4-mini-2026-03-17", "openai", true, true, true, ThinkingEffort, ReasoningEffort, 128_000, 400_000, DialectJSONSchema},
		{"openrouter", "openai/gpt-5.6", "openai", true, true, true, ThinkingEffort, ReasoningEffort, 128_000, 1_050_000, DialectJSONSchema},
		{"openai", "o3", "openai", false, false, true, ThinkingEffort, ReasoningEffort, 100_000, 200_000, DialectJSONSchema},
		{"openai", "o4-mini-2025-04-16", "openai", false, false, true, ThinkingEffort, ReasoningEffort, 100_000, 200_000, DialectJSONSchema},
		{"openai", "gpt-4o-mini", "openai", false, false, false, ThinkingNone, ReasoningNone, 16_384, 128_000, DialectJSONSchema},
		{"openai", "gpt-4.1", "openai", false, false, false, ThinkingNone, ReasoningNone, 32_768, 1_047_576, DialectJSONSchema},
		{"gemini", "gemini-3-pro-preview", "google", false, false, false, ThinkingLevel, ReasoningGemini, 65_536, 1_048_576, DialectGemini},
		{"gemini", "models/gemini-2.5-flash", "google", false, false, false, ThinkingBudget, ReasoningGemini, 65_536, 1_048_576, DialectGemini},
		{"deepseek", "deepseek-chat", "deepseek", false, false, false, ThinkingNone, ReasoningNone, 8192, 128_000, DialectJSONSchema},
		{"deepseek", "deepseek-reasoner", "deepseek", false, false, false, ThinkingAlways, ReasoningContent, 65_536, 128_000, DialectJSONSchema},
		{"deepseek", "deepseek-v4-pro", "deepseek", false, false, false, ThinkingSwitch, ReasoningContent, 384_000, 1_000_000, DialectJSONSchema},
		{"deepseek", "deepseek-flash", "deepseek", false, false, false, ThinkingSwitch, ReasoningContent, 384_000, 1_000_000, DialectJSONSchema},
		{"openai", "o1-preview", "openai", false, false, true, ThinkingAlways, ReasoningEffort, 32_768, 128_000, DialectJSONSchema},
		{"groq", "openai/gpt-oss-120b", "openai", false, false, false, ThinkingEffort, ReasoningContent, 131_072, 131_072, DialectJSONSchema},
		{"groq", "openai/gpt-oss-20b", "openai", false, false, false, ThinkingEffort, ReasoningContent, 32_768, 131_072, DialectJSONSchema},
		{"mistral", "mistral-large-latest", "mistral", false, false, false, ThinkingNone, ReasoningNone, 32_768, 128_000, DialectJSONSchema},
		{"ollama", "qwen3:8b", "qwen", false, false, false, ThinkingNone, ReasoningContent, 8192, 40_960, DialectJSONSchema},
		{"groq", "llama-3.3-70b-versatile", "meta", false, false, false, ThinkingNone, ReasoningNone, 32_768, 131_072, DialectJSONSchema},
		{"vllm", "meta-llama/Llama-3.1-8B-Instruct", "meta", false, false, false, ThinkingNone, ReasoningNone, 8192, 128_000, DialectJSONSchema},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			c := Lookup(tt.provider, tt.model)
			if c.Family != tt.family || c.NativeSearch != tt.native || c.DeferLoading != tt.deferLoad ||
				c.EncryptedReasoning != tt.encrypt || c.Thinking != tt.thinking || c.Reasoning != tt.reasoning ||
				c.MaxOutput != tt.maxOut || c.ContextWindow != tt.ctx || c.SchemaDialect != tt.dialect {
				t.Errorf("Lookup(%q, %q) = %+v", tt.provider, tt.model, c)
			}
			if c.DefaultMaxTokens <= 0 || c.DefaultMaxTokens > c.MaxOutput {
				t.Errorf("default max tokens %d outside (0, %d]", c.DefaultMaxTokens, c.MaxOutput)
			}
		})
	}
}

func TestDefaultMaxTokensGenerous(t *testing.T) {
	t.Parallel()
	for model, want := range map[string]int{
		"claude-sonnet-4-5": 32_000, "claude-opus-4-6": 64_000, "claude-opus-4-1": 32_000,
		"claude-3-haiku-20240307": 4096, "gpt-5": 64_000, "gpt-4o": 16_384, "deepseek-chat": 8192,
	} {
		if got := Lookup("", model).DefaultMaxTokens; got != want {
			t.Errorf("%s: default max tokens %d, want %d", model, got, want)
		}
	}
}

func TestWireEffort(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model, level, want string
		ok                 bool
	}{
		{"gpt-5", "none", "minimal", true},
		{"gpt-5", "max", "high", true},
		{"gpt-5.1", "minimal", "low", true},
		{"gpt-5.2", "max", "xhigh", true},
		{"claude-opus-4-6", "max", "max", true},
		{"claude-opus-4-6", "minimal", "low", true},
		{"gemini-3-pro-preview", "medium", "high", true},
		{"gpt-4o", "high", "", false},
		{"deepseek-reasoner", "high", "", false},
	}
	for _, tt := range tests {
		got, ok := Lookup("", tt.model).WireEffort(tt.level)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s %s: %q %v, want %q %v", tt.model, tt.level, got, ok, tt.want, tt.ok)
		}
	}
}

func TestOverrides(t *testing.T) {
	t.Parallel()
	var ov map[string]Override
	if err := json.Unmarshal([]byte(`{
		"my-gpt-deployment": {"like": "gpt-5.4"},
		"corp-claude-*": {"like": "claude-sonnet-4-5", "native_search": false, "defer_loading": false},
		"corp-claude-special": {"like": "claude-opus-4-6"},
		"local-coder": {"context_window": 32768, "max_output": 8192},
		"gpt-5": {"provider": "azure", "encrypted_reasoning": false},
		"gemini-4-pro": {"like": "gemini-2.5-pro", "tool_result_media": true}
	}`), &ov); err != nil {
		t.Fatal(err)
	}
	tab, err := (*Table)(nil).With(ov)
	if err != nil {
		t.Fatal(err)
	}
	if c := tab.Lookup("azure", "my-gpt-deployment"); !c.NativeSearch || !c.EncryptedReasoning || !c.Known {
		t.Errorf("deployment like gpt-5.4: %+v", c)
	}
	if c := tab.Lookup("anthropic", "corp-claude-fast"); c.NativeSearch || c.DeferLoading || c.Thinking != ThinkingBudget {
		t.Errorf("prefix override: %+v", c)
	}
	if c := tab.Lookup("anthropic", "corp-claude-special"); !c.NativeSearch || c.Thinking != ThinkingAdaptive {
		t.Errorf("exact beats prefix: %+v", c)
	}
	if c := tab.Lookup("ollama", "local-coder"); c.ContextWindow != 32768 || c.MaxOutput != 8192 || c.DefaultMaxTokens != 4096 || !c.Known {
		t.Errorf("declared local model: %+v", c)
	}
	if c := tab.Lookup("azure", "gpt-5"); c.EncryptedReasoning {
		t.Errorf("provider-scoped override not applied: %+v", c)
	}
	if c := tab.Lookup("openai", "gpt-5"); !c.EncryptedReasoning {
		t.Errorf("provider-scoped override leaked to openai: %+v", c)
	}
	if c := tab.Lookup("gemini", "gemini-4-pro"); !c.ToolResultMedia || c.Thinking != ThinkingBudget {
		t.Errorf("tool_result_media override: %+v", c)
	}
	if tab.Lookup("gemini", "gemini-2.5-pro").ToolResultMedia || !tab.Lookup("gemini", "gemini-3.1-pro-preview").ToolResultMedia {
		t.Error("the built-in table: Gemini 3 takes media in function responses, 2.5 does not")
	}
	if _, err := (*Table)(nil).With(map[string]Override{"x": {Thinking: "sometimes"}}); err == nil {
		t.Error("an unknown thinking kind is accepted")
	}
	ns, err := tab.WithNativeSearch(map[string]bool{"corp-claude-*": true, "proxy-*": true})
	if err != nil {
		t.Fatal(err)
	}
	if c := ns.Lookup("anthropic", "corp-claude-fast"); !c.NativeSearch || c.DeferLoading {
		t.Errorf("native_search_models merged: %+v", c)
	}
}

// TestIssue29Table pins the figures and fields issue #29 corrected.
func TestIssue29Table(t *testing.T) {
	t.Parallel()
	tests := []struct {
		provider, model string
		images          bool
		efforts         string
		retired         string
	}{
		{"deepseek", "deepseek-chat", false, "", "2026-07-24"},
		{"deepseek", "deepseek-reasoner", false, "", "2026-07-24"},
		{"deepseek", "deepseek-v4-flash", false, "high,max", ""},
		{"openrouter", "deepseek/deepseek-chat", false, "", ""}, // a router keeps its own schedule
		{"groq", "llama-3.3-70b-versatile", false, "", ""},
		{"groq", "meta-llama/llama-4-scout-17b-16e-instruct", true, "", ""},
		{"anthropic", "claude-3-5-haiku-20241022", true, "", "2026-02-19"},
		{"anthropic", "claude-3-7-sonnet-20250219", true, "", "2026-02-19"},
		{"bedrock", "anthropic.claude-3-7-sonnet-20250219-v1:0", true, "", ""},
		{"anthropic", "claude-opus-4-5", true, "low,medium,high", ""},
		{"anthropic", "claude-sonnet-4-6", true, "low,medium,high,max", ""},
		{"openai", "gpt-5.1-codex", true, "low,medium,high", ""},
		{"openai", "gpt-5.1-codex-mini", true, "medium,high", ""},
		{"openai", "gpt-5.1-codex-max", true, "low,medium,high,xhigh", ""},
		{"openai", "gpt-5.2-codex", true, "low,medium,high,xhigh", ""},
		{"openai", "o1-mini", false, "", ""},
		{"openai", "o3-mini", false, "low,medium,high", ""},
		{"openai", "gpt-4o", true, "", ""},
		{"gemini", "gemini-2.5-flash", true, "none,low,medium,high", ""},
		{"ollama", "some-local-model", false, "", ""},
	}
	for _, tt := range tests {
		c := Lookup(tt.provider, tt.model)
		if c.TakesImages != tt.images || strings.Join(c.Efforts, ",") != tt.efforts || c.Retired != tt.retired {
			t.Errorf("Lookup(%q, %q): images %v efforts %v retired %q, want %v %q %q",
				tt.provider, tt.model, c.TakesImages, c.Efforts, c.Retired, tt.images, tt.efforts, tt.retired)
		}
	}
}

func TestEffortNote(t *testing.T) {
	t.Parallel()
	c := Lookup("openai", "gpt-5.1-codex")
	if w, _ := c.WireEffort(EffortMax); w != "high" {
		t.Fatalf("max on gpt-5.1-codex = %q, want high", w)
	}
	if n := c.EffortNote("gpt-5.1-codex", EffortMax); n != "--effort max: gpt-5.1-codex takes low, medium, high; sending high" {
		t.Errorf("note = %q", n)
	}
	if n := c.EffortNote("gpt-5.1-codex", EffortHigh); n != "" {
		t.Errorf("high goes as asked, got note %q", n)
	}
	if m := c.EffortMap(); m["max"] != "high" || m["none"] != "low" || m["minimal"] != "low" {
		t.Errorf("effort map %v", m)
	}
}

func TestCapabilitiesJSONSnakeCase(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(Lookup("anthropic", "claude-sonnet-4-6"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		if strings.ToLower(k) != k || strings.ContainsAny(k, " -") {
			t.Errorf("key %q is not snake_case", k)
		}
	}
	if m["schema_dialect"] != "jsonschema" || m["context_window"] != float64(1_000_000) || m["max_output"] != float64(128_000) {
		t.Errorf("json %s", b)
	}
}
