package app

import (
	"context"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/azure"
	"github.com/agent-dev/agent/providers/bedrock"
	"github.com/agent-dev/agent/providers/gemini"
	"github.com/agent-dev/agent/providers/vertex"
)

// Where teams run their models: Claude on Vertex AI and Bedrock, Azure
// OpenAI, and Gemini's native API.

func newVertex(s Settings, getenv func(string) string) (agent.Provider, string, error) {
	o, err := vertex.FromEnv(context.Background(), getenv)
	if err != nil {
		return nil, "", usage(err)
	}
	if s.BaseURL != "" {
		o.BaseURL = s.BaseURL
	}
	o.Models, o.NativeModels = s.modelTable(), s.NativeSearchModels
	o.FirstByteTimeout, o.StreamIdleTimeout = time.Duration(s.FirstByteTimeout), time.Duration(s.StreamIdleTimeout)
	p, err := vertex.New(o)
	if err != nil {
		return nil, "", usage(err)
	}
	return p, vertex.DefaultModel, nil
}

func newBedrock(s Settings, getenv func(string) string) (agent.Provider, string, error) {
	o, err := bedrock.FromEnv(context.Background(), getenv)
	if err != nil {
		return nil, "", usage(err)
	}
	if s.BaseURL != "" {
		o.BaseURL = s.BaseURL
	}
	o.Models, o.NativeModels = s.modelTable(), s.NativeSearchModels
	o.FirstByteTimeout, o.StreamIdleTimeout = time.Duration(s.FirstByteTimeout), time.Duration(s.StreamIdleTimeout)
	p, err := bedrock.New(o)
	if err != nil {
		return nil, "", usage(err)
	}
	return p, bedrock.DefaultModel, nil
}

func newAzure(s Settings, getenv func(string) string) (agent.Provider, string, error) {
	if s.BaseURL != "" {
		env := getenv
		getenv = func(k string) string {
			if k == "AZURE_OPENAI_ENDPOINT" {
				return s.BaseURL
			}
			return env(k)
		}
	}
	o, err := azure.FromEnv(getenv)
	if err != nil {
		return nil, "", usage(err)
	}
	if s.Model == "" {
		return nil, "", Usagef("azure: name the deployment with --model (its capabilities come from the config's models table, or from the name when it names the model)")
	}
	o.Models = s.modelTable()
	o.FirstByteTimeout, o.StreamIdleTimeout = time.Duration(s.FirstByteTimeout), time.Duration(s.StreamIdleTimeout)
	p, err := azure.New(o)
	if err != nil {
		return nil, "", usage(err)
	}
	return p, "", nil
}

func newGemini(s Settings, getenv func(string) string) (agent.Provider, string, error) {
	o := gemini.FromEnv(getenv)
	if o.APIKey == "" {
		return nil, gemini.DefaultModel, Usagef("GEMINI_API_KEY (or GOOGLE_API_KEY) is not set: export it, pick another --provider, or try agent --demo")
	}
	if s.BaseURL != "" {
		o.BaseURL = s.BaseURL
	}
	o.Models, o.Effort = s.modelTable(), s.Effort
	o.FirstByteTimeout, o.StreamIdleTimeout = time.Duration(s.FirstByteTimeout), time.Duration(s.StreamIdleTimeout)
	return gemini.New(o), gemini.DefaultModel, nil
}

func newVertexGemini(s Settings, getenv func(string) string) (agent.Provider, string, error) {
	o, err := vertex.GeminiFromEnv(context.Background(), getenv)
	if err != nil {
		return nil, "", usage(err)
	}
	if s.BaseURL != "" {
		o.BaseURL = s.BaseURL
	}
	p, err := vertex.NewGemini(o, gemini.Options{Models: s.modelTable(), Effort: s.Effort,
		FirstByteTimeout: time.Duration(s.FirstByteTimeout), StreamIdleTimeout: time.Duration(s.StreamIdleTimeout)})
	if err != nil {
		return nil, "", usage(err)
	}
	return p, gemini.DefaultModel, nil
}
