package openaichat

import (
	"context"
	"fmt"
	"sort"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/provider"
)

// Descriptors are the presets as the registry lists them, one --provider
// value each, sorted by name.
func Descriptors() []provider.Descriptor {
	out := make([]provider.Descriptor, 0, len(Presets))
	for _, ps := range Presets {
		out = append(out, ps.descriptor())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (ps Preset) descriptor() provider.Descriptor {
	name := ps.Provider
	if name == "" {
		name = ps.Name
	}
	d := provider.Descriptor{
		Name: name, Family: ps.Family, Home: ps.Home, DefaultModel: ps.DefaultModel,
		KeyRequired: ps.KeyRequired, ModelPrefixes: ps.ModelPrefixes, Local: ps.Local,
		ListModels: provider.ListVia,
		New: func(_ context.Context, c provider.Config) (agent.Provider, error) {
			p, err := FromPreset(ps.Name, Options{BaseURL: c.BaseURL, Models: c.Models,
				FirstByteTimeout: c.FirstByteTimeout, StreamIdleTimeout: c.StreamIdleTimeout}, c.Getenv)
			if err != nil {
				return nil, err
			}
			if ps.DefaultModel == "" && c.Model == "" {
				return nil, fmt.Errorf("%s serves whatever model it loaded: name it with --model", name)
			}
			return p, nil
		},
	}
	if ps.KeyEnv != "" {
		d.KeyEnv = []string{ps.KeyEnv}
	}
	if ps.BaseURLEnv != "" {
		d.BaseURLEnv = []string{ps.BaseURLEnv}
	}
	return d
}
