package cmd

import (
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openaichat"
)

// The Chat Completions presets: every OpenAI-compatible server people run.
// "openai" itself means the Responses API (provider_openai.go); its Chat
// Completions endpoint is "openai-chat".
func init() {
	for _, name := range append(openaichat.PresetNames(), "openai-chat") {
		if name == "openai" {
			continue
		}
		providerFactories[name] = chatFactory(name)
	}
}

func chatFactory(name string) providerFactory {
	return func(g *Globals) (agent.Provider, string, error) {
		ps, _ := openaichat.LookupPreset(name)
		p, err := openaichat.FromPreset(name, openaichat.Options{BaseURL: g.Config.BaseURL, Models: modelTable(g),
			FirstByteTimeout: time.Duration(g.Config.FirstByteTimeout), StreamIdleTimeout: time.Duration(g.Config.StreamIdleTimeout)}, g.Getenv)
		if err != nil {
			return nil, "", usagef("%v", err)
		}
		if ps.DefaultModel == "" && g.Config.Model == "" {
			return nil, "", usagef("%s serves whatever model it loaded: name it with --model", name)
		}
		return p, ps.DefaultModel, nil
	}
}
