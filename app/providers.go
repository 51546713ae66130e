package app

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/provider"
	"github.com/agent-dev/agent/providers/registry"
)

// modelTable is the capability table with the config's overrides (already
// validated when the settings were loaded) and the providers' families.
func (s Settings) modelTable() *models.Table {
	t, err := s.ModelTable()
	if err != nil {
		return registry.Models(nil)
	}
	return t
}

// ModelTable is the config's capability table with each provider's family
// as the registry declares it.
func (s Settings) ModelTable() (*models.Table, error) {
	t, err := s.Config.ModelTable()
	if err != nil {
		return nil, err
	}
	return registry.Models(t), nil
}

// CheckProvider refuses a --provider value the registry does not list.
func CheckProvider(name string) error {
	if _, ok := registry.Lookup(name); !ok {
		return usage(&registry.UnknownError{Name: name})
	}
	return nil
}

// NewProvider resolves a provider name to an adapter and its default model
// (which comes back with a missing-key error too: see registry.New).
func NewProvider(s Settings, name string, getenv func(string) string) (agent.Provider, string, error) {
	p, model, err := registry.New(context.Background(), name, provider.Config{
		Model: s.Model, BaseURL: s.BaseURL, Models: s.modelTable(), Effort: s.Effort,
		FirstByteTimeout: time.Duration(s.FirstByteTimeout), StreamIdleTimeout: time.Duration(s.StreamIdleTimeout),
		Getenv: getenv})
	return p, model, usage(err)
}

// validateProviderTools fails before any request when the provider cannot
// run a hosted tool, naming the aliases the vendors' own APIs support.
func validateProviderTools(name string, p agent.Provider, pts []agent.ProviderTool) error {
	return usage(registry.ValidateHosted(name, p, pts))
}

// deferConnectors asks, with --defer, that the MCP connectors' tools be
// deferred too (Anthropic sets it on the toolset's default_config, OpenAI
// on its hosted MCP tool when it searches), unless the options say so.
func deferConnectors(pts []agent.ProviderTool) []agent.ProviderTool {
	out := append([]agent.ProviderTool(nil), pts...)
	for i, pt := range out {
		if pt.Alias != "mcp" {
			continue
		}
		var o map[string]json.RawMessage
		if json.Unmarshal(pt.Options, &o) != nil || o == nil {
			continue
		}
		if _, set := o["defer_loading"]; set {
			continue
		}
		o["defer_loading"] = json.RawMessage("true")
		b, _ := json.Marshal(o)
		out[i].Options = b
	}
	return out
}

// parseProviderTools reads --provider-tool values: NAME, NAME:{json options}
// or a raw JSON definition. Enabling an alias again replaces its options.
func parseProviderTools(specs []string) ([]agent.ProviderTool, error) {
	var out []agent.ProviderTool
	pos := map[string]int{}
	for _, spec := range specs {
		spec = strings.TrimSpace(spec)
		if strings.HasPrefix(spec, "{") {
			if !json.Valid([]byte(spec)) {
				return nil, Usagef("--provider-tool %q: raw definition is not valid JSON", spec)
			}
			out = append(out, agent.ProviderTool{Raw: json.RawMessage(spec)})
			continue
		}
		name, opts, hasOpts := strings.Cut(spec, ":")
		pt := agent.ProviderTool{Alias: strings.TrimSpace(name)}
		if pt.Alias == "" {
			return nil, Usagef("--provider-tool %q: name the tool, e.g. web_search or web_search:{\"max_uses\":3}", spec)
		}
		if hasOpts {
			if !json.Valid([]byte(opts)) || !strings.HasPrefix(strings.TrimSpace(opts), "{") {
				return nil, Usagef("--provider-tool %s: options must be a JSON object, got %q", pt.Alias, opts)
			}
			pt.Options = json.RawMessage(opts)
		}
		if i, ok := pos[pt.Alias]; ok {
			out[i] = pt
			continue
		}
		pos[pt.Alias] = len(out)
		out = append(out, pt)
	}
	return out, nil
}

func providerToolSpec(pt agent.ProviderTool) string {
	if len(pt.Raw) > 0 {
		return string(pt.Raw)
	}
	if len(pt.Options) > 0 {
		return pt.Alias + ":" + string(pt.Options)
	}
	return pt.Alias
}

// notRetired refuses, before any request, a model its maker no longer
// serves on its own API (the request would fail with "not found").
func notRetired(s Settings, model string) error {
	if c := s.modelTable().Lookup(s.Provider, model); c.Retired != "" {
		return Usagef("%s was retired by its maker on %s and is no longer served: pick a current model with --model (agent models %s shows what the table says)", model, c.Retired, model)
	}
	return nil
}
