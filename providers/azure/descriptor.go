package azure

import (
	"errors"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openairesponses"
	"github.com/agent-dev/agent/providers/provider"
)

// Descriptor is Azure OpenAI as the registry lists it. --model names a
// deployment, so there is no default model, and nothing is listed: the
// resource lists base models, not deployments.
func Descriptor() provider.Descriptor {
	return provider.Descriptor{
		Name: Name, Family: "openai",
		KeyEnv:        []string{"AZURE_OPENAI_API_KEY"},
		BaseURLEnv:    []string{"AZURE_OPENAI_ENDPOINT"},
		ModelPrefixes: openairesponses.ModelPrefixes,
		Hosted:        openairesponses.Hosted(),
		New: provider.Constructor(FromEnv, func(o Options, c provider.Config) (agent.Provider, error) {
			if c.Model == "" {
				return nil, errors.New("azure: name the deployment with --model (its capabilities come from the config's models table, or from the name when it names the model)")
			}
			o.Models, o.FirstByteTimeout, o.StreamIdleTimeout = c.Models, c.FirstByteTimeout, c.StreamIdleTimeout
			return New(o)
		}),
	}
}
