package openairesponses

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/provider"
)

// DefaultModel is used without --model.
const DefaultModel = "gpt-5.4"

// ModelPrefixes are the ids of OpenAI's priced models, for the picker of
// every provider serving them.
var ModelPrefixes = []string{"gpt-", "o3", "o4"}

// FromEnv reads OPENAI_API_KEY and OPENAI_BASE_URL as the SDKs do.
func FromEnv(_ context.Context, getenv func(string) string) (Options, error) {
	return Options{APIKey: getenv("OPENAI_API_KEY"), BaseURL: getenv("OPENAI_BASE_URL")}, nil
}

// Descriptor is "openai", the Responses API, as the registry lists it.
func Descriptor() provider.Descriptor {
	return provider.Descriptor{
		Name: "openai", Family: "openai", Home: true, DefaultModel: DefaultModel,
		KeyEnv: []string{"OPENAI_API_KEY"}, KeyRequired: true, BaseURLEnv: []string{"OPENAI_BASE_URL"},
		ModelPrefixes: ModelPrefixes,
		Hosted:        Hosted(),
		New: provider.Constructor(FromEnv, func(o Options, c provider.Config) (agent.Provider, error) {
			o.Models, o.FirstByteTimeout, o.StreamIdleTimeout = c.Models, c.FirstByteTimeout, c.StreamIdleTimeout
			return New(o), nil
		}),
		ListModels: provider.ListVia,
	}
}

// Hosted is the Responses API's hosted tools, on OpenAI and Azure.
func Hosted() *provider.Hosted {
	return &provider.Hosted{Aliases: SupportedAliases(), Validate: ValidateProviderTools, ReadOnly: readOnlyTool}
}

// readOnlyTool: web search and file search read, tool search reads the
// request's own tools; code_interpreter runs code, a remote MCP server's
// tools may act, and so may a type this adapter does not know.
func readOnlyTool(pt agent.ProviderTool) bool {
	if len(pt.Raw) == 0 {
		return pt.Alias == "web_search"
	}
	var d struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(pt.Raw, &d) != nil {
		return false
	}
	return strings.HasPrefix(d.Type, "web_search") || d.Type == "file_search" || d.Type == "tool_search"
}
