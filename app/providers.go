package app

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/openaichat"
	"github.com/agent-dev/agent/providers/openairesponses"
)

// factory builds a provider and names its default model.
type factory func(s Settings, getenv func(string) string) (agent.Provider, string, error)

// factories is the provider registry: the two APIs that search deferred
// tools natively, and the Chat Completions presets (every OpenAI-compatible
// server people run). "openai" itself means the Responses API; its Chat
// Completions endpoint is "openai-chat".
func factories() map[string]factory {
	m := map[string]factory{"anthropic": newAnthropic, "openai": newOpenAI}
	for _, name := range append(openaichat.PresetNames(), "openai-chat") {
		if name != "openai" {
			m[name] = chatFactory(name)
		}
	}
	// Where teams run their models (cloud.go). Gemini's OpenAI-compatible
	// endpoint stays reachable as "gemini-openai"; "gemini" is the native API.
	m["gemini-openai"] = chatFactory("gemini")
	m["vertex"], m["bedrock"], m["azure"], m["gemini"], m["vertex-gemini"] = newVertex, newBedrock, newAzure, newGemini, newVertexGemini
	return m
}

// modelTable is the capability table with the config's overrides (already
// validated when the settings were loaded).
func (s Settings) modelTable() *models.Table {
	t, err := s.ModelTable()
	if err != nil {
		return nil
	}
	return t
}

// ProviderNames lists the names --provider accepts.
func ProviderNames() []string {
	var out []string
	for n := range factories() {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// NewProvider resolves a provider name to an adapter and its default model.
// The default model comes back with a missing-key error too, so figures
// that depend on the model (the over-threshold warning of agent tools) do
// not change with whether a key is set.
func NewProvider(s Settings, name string, getenv func(string) string) (agent.Provider, string, error) {
	f, ok := factories()[name]
	if !ok {
		return nil, "", Usagef("unknown provider %q: use one of %s", name, strings.Join(ProviderNames(), ", "))
	}
	return f(s, getenv)
}

func newAnthropic(s Settings, getenv func(string) string) (agent.Provider, string, error) {
	o := anthropic.Options{APIKey: getenv("ANTHROPIC_API_KEY"), BaseURL: getenv("ANTHROPIC_BASE_URL"), Models: s.modelTable(),
		FirstByteTimeout: time.Duration(s.FirstByteTimeout), StreamIdleTimeout: time.Duration(s.StreamIdleTimeout)}
	if s.BaseURL != "" {
		o.BaseURL = s.BaseURL
	}
	if o.APIKey == "" {
		return nil, "claude-sonnet-4-5", Usagef("ANTHROPIC_API_KEY is not set: export it, pick another --provider, or try agent --demo")
	}
	return anthropic.New(o), "claude-sonnet-4-5", nil
}

func newOpenAI(s Settings, getenv func(string) string) (agent.Provider, string, error) {
	o := openairesponses.Options{APIKey: getenv("OPENAI_API_KEY"), BaseURL: getenv("OPENAI_BASE_URL"), Models: s.modelTable(),
		FirstByteTimeout: time.Duration(s.FirstByteTimeout), StreamIdleTimeout: time.Duration(s.StreamIdleTimeout)}
	if s.BaseURL != "" {
		o.BaseURL = s.BaseURL
	}
	if o.APIKey == "" {
		return nil, "gpt-5.4", Usagef("OPENAI_API_KEY is not set: export it, pick another --provider, or try agent --demo")
	}
	return openairesponses.New(o), "gpt-5.4", nil
}

func chatFactory(name string) factory {
	return func(s Settings, getenv func(string) string) (agent.Provider, string, error) {
		ps, _ := openaichat.LookupPreset(name)
		if ps.KeyRequired && ps.KeyEnv != "" && getenv(ps.KeyEnv) == "" {
			// Worded as for anthropic and openai: the preset's own name
			// ("openai" for openai-chat, "gemini" for gemini-openai) is not
			// the --provider the user typed.
			return nil, "", Usagef("%s is not set: export it, pick another --provider, or try agent --demo", ps.KeyEnv)
		}
		p, err := openaichat.FromPreset(name, openaichat.Options{BaseURL: s.BaseURL, Models: s.modelTable(),
			FirstByteTimeout: time.Duration(s.FirstByteTimeout), StreamIdleTimeout: time.Duration(s.StreamIdleTimeout)}, getenv)
		if err != nil {
			return nil, "", usage(err)
		}
		if ps.DefaultModel == "" && s.Model == "" {
			return nil, "", Usagef("%s serves whatever model it loaded: name it with --model", name)
		}
		return p, ps.DefaultModel, nil
	}
}

// validateProviderTools fails before any request when the provider cannot
// run a hosted tool, naming the aliases it does support.
func validateProviderTools(p agent.Provider, pts []agent.ProviderTool) error {
	if len(pts) == 0 {
		return nil
	}
	var err error
	switch p.Name() {
	case "anthropic", "vertex":
		err = anthropic.ValidateProviderTools(pts)
	case "openai", "azure":
		err = openairesponses.ValidateProviderTools(pts)
	default:
		for _, pt := range pts {
			if pt.Alias != "" {
				err = fmt.Errorf("provider tool %q is not supported by %s: it has no hosted tools (anthropic offers %s; openai offers %s)",
					pt.Alias, p.Name(), strings.Join(anthropic.SupportedAliases(), ", "), strings.Join(openairesponses.SupportedAliases(), ", "))
				break
			}
		}
	}
	return usage(err)
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
