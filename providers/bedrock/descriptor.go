package bedrock

import (
	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/provider"
)

// Descriptor is Claude on Amazon Bedrock as the registry lists it. The
// bearer token is optional (the AWS credential chain serves otherwise),
// Bedrock runs no Anthropic server tools, and it does not list models.
func Descriptor() provider.Descriptor {
	return provider.Descriptor{
		Name: Name, Family: "anthropic", DefaultModel: DefaultModel,
		KeyEnv:        []string{"AWS_BEARER_TOKEN_BEDROCK"},
		BaseURLEnv:    []string{"ANTHROPIC_BEDROCK_BASE_URL", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"},
		ModelPrefixes: []string{"claude-"},
		// Bedrock's ids of the same models as the Claude API's aliases,
		// through the US cross-region inference profile, as DefaultModel.
		Aliases: map[string]string{"sonnet": DefaultModel, "opus": "us.anthropic.claude-opus-4-5-20251101-v1:0",
			"haiku": "us.anthropic.claude-haiku-4-5-20251001-v1:0"},
		Images: anthropic.Images,
		New: provider.Constructor(FromEnv, func(o Options, c provider.Config) (agent.Provider, error) {
			o.Models, o.FirstByteTimeout, o.StreamIdleTimeout = c.Models, c.FirstByteTimeout, c.StreamIdleTimeout
			return New(o)
		}),
	}
}
