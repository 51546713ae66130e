package cmd

import (
	"context"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/azure"
	"github.com/agent-dev/agent/providers/bedrock"
	"github.com/agent-dev/agent/providers/gemini"
	"github.com/agent-dev/agent/providers/vertex"
)

// Where teams run their models: Claude on Vertex AI and Bedrock, Azure
// OpenAI, and Gemini's native API. Gemini's OpenAI-compatible endpoint
// stays reachable as "gemini-openai" (it is registered as "gemini" by
// provider_chat.go's init, which runs first, and replaced here).
func init() {
	providerFactories["gemini-openai"] = chatFactory("gemini")
	providerFactories["vertex"] = func(g *Globals) (agent.Provider, string, error) {
		o, err := vertex.FromEnv(context.Background(), g.Getenv)
		if err != nil {
			return nil, "", usagef("%v", err)
		}
		if g.Config.BaseURL != "" {
			o.BaseURL = g.Config.BaseURL
		}
		o.Models, o.NativeModels = modelTable(g), g.Config.NativeSearchModels
		o.FirstByteTimeout, o.StreamIdleTimeout = time.Duration(g.Config.FirstByteTimeout), time.Duration(g.Config.StreamIdleTimeout)
		p, err := vertex.New(o)
		if err != nil {
			return nil, "", usagef("%v", err)
		}
		return p, vertex.DefaultModel, nil
	}
	providerFactories["bedrock"] = func(g *Globals) (agent.Provider, string, error) {
		o, err := bedrock.FromEnv(context.Background(), g.Getenv)
		if err != nil {
			return nil, "", usagef("%v", err)
		}
		if g.Config.BaseURL != "" {
			o.BaseURL = g.Config.BaseURL
		}
		o.Models, o.NativeModels = modelTable(g), g.Config.NativeSearchModels
		o.FirstByteTimeout, o.StreamIdleTimeout = time.Duration(g.Config.FirstByteTimeout), time.Duration(g.Config.StreamIdleTimeout)
		p, err := bedrock.New(o)
		if err != nil {
			return nil, "", usagef("%v", err)
		}
		return p, bedrock.DefaultModel, nil
	}
	providerFactories["azure"] = func(g *Globals) (agent.Provider, string, error) {
		getenv := g.Getenv
		if g.Config.BaseURL != "" {
			getenv = func(k string) string {
				if k == "AZURE_OPENAI_ENDPOINT" {
					return g.Config.BaseURL
				}
				return g.Getenv(k)
			}
		}
		o, err := azure.FromEnv(getenv)
		if err != nil {
			return nil, "", usagef("%v", err)
		}
		if g.Config.Model == "" {
			return nil, "", usagef("azure: name the deployment with --model (its capabilities come from the config's models table, or from the name when it names the model)")
		}
		o.Models = modelTable(g)
		o.FirstByteTimeout, o.StreamIdleTimeout = time.Duration(g.Config.FirstByteTimeout), time.Duration(g.Config.StreamIdleTimeout)
		p, err := azure.New(o)
		if err != nil {
			return nil, "", usagef("%v", err)
		}
		return p, "", nil
	}
	providerFactories["vertex-gemini"] = func(g *Globals) (agent.Provider, string, error) {
		o, err := vertex.GeminiFromEnv(context.Background(), g.Getenv)
		if err != nil {
			return nil, "", usagef("%v", err)
		}
		if g.Config.BaseURL != "" {
			o.BaseURL = g.Config.BaseURL
		}
		p, err := vertex.NewGemini(o, gemini.Options{Models: modelTable(g), Effort: g.Config.Effort,
			FirstByteTimeout: time.Duration(g.Config.FirstByteTimeout), StreamIdleTimeout: time.Duration(g.Config.StreamIdleTimeout)})
		if err != nil {
			return nil, "", usagef("%v", err)
		}
		return p, gemini.DefaultModel, nil
	}
	providerFactories["gemini"] = func(g *Globals) (agent.Provider, string, error) {
		o := gemini.FromEnv(g.Getenv)
		if o.APIKey == "" {
			return nil, gemini.DefaultModel, usagef("GEMINI_API_KEY (or GOOGLE_API_KEY) is not set: export it, pick another --provider, or try agent --demo")
		}
		if g.Config.BaseURL != "" {
			o.BaseURL = g.Config.BaseURL
		}
		o.Models, o.Effort = modelTable(g), g.Config.Effort
		o.FirstByteTimeout, o.StreamIdleTimeout = time.Duration(g.Config.FirstByteTimeout), time.Duration(g.Config.StreamIdleTimeout)
		return gemini.New(o), gemini.DefaultModel, nil
	}
}

// modelTable is the capability table with the config's overrides (already
// validated when the config was read).
func modelTable(g *Globals) *models.Table {
	t, err := g.Config.ModelTable()
	if err != nil {
		return nil
	}
	return t
}
