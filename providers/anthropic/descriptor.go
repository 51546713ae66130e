package anthropic

import (
	"context"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/provider"
)

// DefaultModel is used without --model.
const DefaultModel = "claude-sonnet-4-5"

// FromEnv reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL as the SDKs do.
func FromEnv(_ context.Context, getenv func(string) string) (Options, error) {
	return Options{APIKey: getenv("ANTHROPIC_API_KEY"), BaseURL: getenv("ANTHROPIC_BASE_URL")}, nil
}

// Images are the Messages API's limits on an image (the vision docs):
// jpeg, png, gif and webp, 5 MB of base64 text at most (3.75 MB of image),
// on the Claude API, Vertex AI and Bedrock alike.
var Images = provider.ImageRules{MediaTypes: []string{"image/jpeg", "image/png", "image/gif", "image/webp"}, MaxBytes: 5 << 20 / 4 * 3}

// Descriptor is the anthropic provider as the registry lists it.
func Descriptor() provider.Descriptor {
	return provider.Descriptor{
		Name: providerName, Family: "anthropic", Home: true, DefaultModel: DefaultModel,
		KeyEnv: []string{"ANTHROPIC_API_KEY"}, KeyRequired: true, BaseURLEnv: []string{"ANTHROPIC_BASE_URL"},
		ModelPrefixes: []string{"claude-"},
		Aliases:       map[string]string{"sonnet": DefaultModel, "opus": "claude-opus-4-5", "haiku": "claude-haiku-4-5"},
		Hosted:        Hosted(),
		Images:        Images,
		New: provider.Constructor(FromEnv, func(o Options, c provider.Config) (agent.Provider, error) {
			o.Models, o.FirstByteTimeout, o.StreamIdleTimeout = c.Models, c.FirstByteTimeout, c.StreamIdleTimeout
			return New(o), nil
		}),
		ListModels: provider.ListVia,
	}
}

// Hosted is the Messages API's server tools on Anthropic's own API (the
// platforms serving Claude run fewer: HostedOn).
func Hosted() *provider.Hosted { return HostedOn(providerName) }
