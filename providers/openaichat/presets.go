package openaichat

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// Preset describes one OpenAI-compatible server people commonly run or rent.
type Preset struct {
	// Name is the --provider value ("ollama", "groq", ...).
	Name string
	// BaseURL is the default base URL, up to and including /v1 (or the
	// server's equivalent); the adapter appends /chat/completions.
	BaseURL string
	// KeyEnv is the environment variable the API key is read from ("" when
	// the server has no notion of a key).
	KeyEnv string
	// BaseURLEnv, when set, overrides BaseURL from the environment the way
	// the official SDKs do (OPENAI_BASE_URL).
	BaseURLEnv string
	// KeyRequired is true for hosted services that answer 401 without one.
	KeyRequired bool
	// DefaultModel is used when no --model is given; "" means the user must
	// name one (a vLLM or LM Studio server serves whatever was loaded).
	DefaultModel string
	// DropReasoning strips reasoning_content from replayed assistant
	// messages: OpenAI rejects unknown message fields, while DeepSeek's
	// thinking mode requires them back.
	DropReasoning bool
	// ShortCallIDs rewrites tool call ids the server did not make itself to
	// 9 alphanumeric characters: Mistral rejects any other id shape, which
	// matters once a conversation carries ids from another provider.
	ShortCallIDs bool
	// NoStreamOptions leaves out stream_options: Mistral answers 422 to it
	// (and sends usage in the last chunk anyway).
	NoStreamOptions bool
	// MaxTokensField overrides "max_tokens": OpenAI's newer models accept
	// only max_completion_tokens, which Mistral in turn rejects.
	MaxTokensField string
	// Provider is the --provider value when it is not Name: "openai" and
	// "gemini" name their vendors' own APIs, so their Chat Completions
	// endpoints are "openai-chat" and "gemini-openai".
	Provider string
	// Family, Home, Local and ModelPrefixes: see provider.Descriptor.
	Family        string
	Home, Local   bool
	ModelPrefixes []string
	// ReasoningObject sends --effort as OpenRouter documents it for every
	// reasoning model, whatever its maker: "reasoning": {"effort": ...}
	// (openrouter.ai/docs/use-cases/reasoning-tokens), which the router
	// turns into each maker's own control (a Claude thinking budget, a
	// Gemini thinking level, DeepSeek's thinking).
	ReasoningObject bool
	// MaxTools is the most entries the server's tools array takes, where
	// its maker documents one: OpenAI's 128 ("A max of 128 functions are
	// supported", answered with array_above_max_length), Gemini's 512
	// function declarations. More are refused before sending, or deferred
	// with --defer auto (agent.ToolLimiter). 0: none known.
	MaxTools int
}

// Presets are the named servers, keyed by Preset.Name.
var Presets = map[string]Preset{
	"openai": {Name: "openai", Provider: ProviderName, BaseURL: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY",
		BaseURLEnv: "OPENAI_BASE_URL", KeyRequired: true, DefaultModel: "gpt-4.1", DropReasoning: true,
		MaxTokensField: "max_completion_tokens", Family: "openai", ModelPrefixes: []string{"gpt-", "o3", "o4"}, MaxTools: 128},
	"ollama":   {Name: "ollama", BaseURL: "http://127.0.0.1:11434/v1", KeyEnv: "OLLAMA_API_KEY", DefaultModel: "qwen3", Local: true},
	"llamacpp": {Name: "llamacpp", BaseURL: "http://127.0.0.1:8080/v1", KeyEnv: "LLAMA_API_KEY", DefaultModel: "default", Local: true},
	"vllm":     {Name: "vllm", BaseURL: "http://127.0.0.1:8000/v1", KeyEnv: "VLLM_API_KEY", Local: true},
	"lmstudio": {Name: "lmstudio", BaseURL: "http://127.0.0.1:1234/v1", Local: true},
	"openrouter": {Name: "openrouter", BaseURL: "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY",
		KeyRequired: true, DefaultModel: "openai/gpt-4.1-mini", ReasoningObject: true},
	"groq": {Name: "groq", BaseURL: "https://api.groq.com/openai/v1", KeyEnv: "GROQ_API_KEY",
		KeyRequired: true, DefaultModel: "llama-3.3-70b-versatile", DropReasoning: true},
	// deepseek-chat and deepseek-reasoner were retired on 2026-07-24;
	// DeepSeek's quick start names deepseek-flash (V4.1 Flash, which also
	// serves the older deepseek-v4-flash name) as the model to use.
	"deepseek": {Name: "deepseek", BaseURL: "https://api.deepseek.com/v1", KeyEnv: "DEEPSEEK_API_KEY",
		KeyRequired: true, DefaultModel: "deepseek-flash", Family: "deepseek", Home: true, ModelPrefixes: []string{"deepseek-"}},
	"mistral": {Name: "mistral", BaseURL: "https://api.mistral.ai/v1", KeyEnv: "MISTRAL_API_KEY",
		KeyRequired: true, DefaultModel: "mistral-large-latest", DropReasoning: true, ShortCallIDs: true,
		NoStreamOptions: true, Family: "mistral", Home: true, ModelPrefixes: []string{"mistral-", "codestral"}},
	"gemini": {Name: "gemini", Provider: "gemini-openai", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", KeyEnv: "GEMINI_API_KEY",
		KeyRequired: true, DefaultModel: "gemini-2.5-flash", DropReasoning: true, Family: "google", MaxTools: 512},
}

// aliases are the other spellings people type.
var aliases = map[string]string{
	"openai-chat": "openai",
	"llama.cpp":   "llamacpp",
	"llama-cpp":   "llamacpp",
	"lm-studio":   "lmstudio",
	"google":      "gemini",
}

// LookupPreset finds a preset by name or alias, case-insensitively.
func LookupPreset(name string) (Preset, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	if a, ok := aliases[n]; ok {
		n = a
	}
	p, ok := Presets[n]
	return p, ok
}

// PresetNames lists the preset names, sorted, for help texts.
func PresetNames() []string {
	out := make([]string, 0, len(Presets))
	for n := range Presets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// FromPreset builds a provider for the named preset. Fields already set in o
// win; an empty BaseURL or APIKey is filled from the preset and getenv
// (os.Getenv when nil). A hosted preset without a key is an error that names
// the variable to set. The preset's name becomes the label.
func FromPreset(name string, o Options, getenv func(string) string) (*Provider, error) {
	ps, ok := LookupPreset(name)
	if !ok {
		return nil, fmt.Errorf("unknown chat completions preset %q: use one of %s, or --base-url", name, strings.Join(PresetNames(), ", "))
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if o.Name == "" {
		o.Name = ps.Name
	}
	if o.BaseURL == "" && ps.BaseURLEnv != "" {
		o.BaseURL = getenv(ps.BaseURLEnv)
	}
	if o.BaseURL == "" {
		o.BaseURL = ps.BaseURL
	}
	if o.APIKey == "" && ps.KeyEnv != "" {
		o.APIKey = getenv(ps.KeyEnv)
	}
	if o.APIKey == "" && ps.KeyRequired {
		return nil, fmt.Errorf("%s needs an API key: set %s", ps.Name, ps.KeyEnv)
	}
	o.DropReasoning = o.DropReasoning || ps.DropReasoning
	o.ShortCallIDs = o.ShortCallIDs || ps.ShortCallIDs
	o.NoStreamOptions = o.NoStreamOptions || ps.NoStreamOptions
	o.ReasoningObject = o.ReasoningObject || ps.ReasoningObject
	if o.MaxTokensField == "" {
		o.MaxTokensField = ps.MaxTokensField
	}
	if o.MaxTools == 0 {
		o.MaxTools = ps.MaxTools
	}
	return New(o), nil
}
