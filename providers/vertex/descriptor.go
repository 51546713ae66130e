package vertex

import (
	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/gemini"
	"github.com/agent-dev/agent/providers/provider"
)

// Descriptor is Claude on Vertex AI as the registry lists it. It does not
// list models: Vertex AI has no Messages-style listing of Claude.
func Descriptor() provider.Descriptor {
	return provider.Descriptor{
		Name: Name, Family: "anthropic", DefaultModel: DefaultModel,
		BaseURLEnv:    []string{"ANTHROPIC_VERTEX_BASE_URL"},
		ModelPrefixes: []string{"claude-"},
		Aliases:       map[string]string{"sonnet": DefaultModel, "opus": "claude-opus-4-5@20251101", "haiku": "claude-haiku-4-5@20251001"},
		Hosted:        anthropic.HostedOn(Name),
		Images:        anthropic.Images,
		New: provider.Constructor(FromEnv, func(o Options, c provider.Config) (agent.Provider, error) {
			o.Models, o.FirstByteTimeout, o.StreamIdleTimeout = c.Models, c.FirstByteTimeout, c.StreamIdleTimeout
			return New(o)
		}),
	}
}

// GeminiDescriptor is Gemini on Vertex AI as the registry lists it.
func GeminiDescriptor() provider.Descriptor {
	return provider.Descriptor{
		Name: GeminiTag, Family: "google", DefaultModel: gemini.DefaultModel,
		BaseURLEnv: []string{"GOOGLE_VERTEX_BASE_URL"},
		Images:     gemini.Images,
		New: provider.Constructor(GeminiFromEnv, func(o Options, c provider.Config) (agent.Provider, error) {
			return NewGemini(o, gemini.Configured(gemini.Options{}, c))
		}),
	}
}
