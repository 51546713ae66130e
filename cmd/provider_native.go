package cmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/openairesponses"
)

// The two APIs that search deferred tools natively.
func init() {
	providerFactories["anthropic"] = func(g *Globals) (agent.Provider, string, error) {
		o := anthropic.Options{APIKey: g.Getenv("ANTHROPIC_API_KEY"), BaseURL: g.Getenv("ANTHROPIC_BASE_URL"),
			Models: modelTable(g), FirstByteTimeout: time.Duration(g.Config.FirstByteTimeout),
			StreamIdleTimeout: time.Duration(g.Config.StreamIdleTimeout)}
		if g.Config.BaseURL != "" {
			o.BaseURL = g.Config.BaseURL
		}
		if o.APIKey == "" {
			return nil, "claude-sonnet-4-5", usagef("ANTHROPIC_API_KEY is not set: export it, pick another --provider, or try agent --demo")
		}
		return anthropic.New(o), "claude-sonnet-4-5", nil
	}
	providerFactories["openai"] = func(g *Globals) (agent.Provider, string, error) {
		o := openairesponses.Options{APIKey: g.Getenv("OPENAI_API_KEY"), BaseURL: g.Getenv("OPENAI_BASE_URL"),
			Models: modelTable(g), FirstByteTimeout: time.Duration(g.Config.FirstByteTimeout),
			StreamIdleTimeout: time.Duration(g.Config.StreamIdleTimeout)}
		if g.Config.BaseURL != "" {
			o.BaseURL = g.Config.BaseURL
		}
		if o.APIKey == "" {
			return nil, "gpt-5.4", usagef("OPENAI_API_KEY is not set: export it, pick another --provider, or try agent --demo")
		}
		return openairesponses.New(o), "gpt-5.4", nil
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
	if err != nil {
		return usagef("%v", err)
	}
	return nil
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
				return nil, usagef("--provider-tool %q: raw definition is not valid JSON", spec)
			}
			out = append(out, agent.ProviderTool{Raw: json.RawMessage(spec)})
			continue
		}
		name, opts, hasOpts := strings.Cut(spec, ":")
		pt := agent.ProviderTool{Alias: strings.TrimSpace(name)}
		if pt.Alias == "" {
			return nil, usagef("--provider-tool %q: name the tool, e.g. web_search or web_search:{\"max_uses\":3}", spec)
		}
		if hasOpts {
			if !json.Valid([]byte(opts)) || !strings.HasPrefix(strings.TrimSpace(opts), "{") {
				return nil, usagef("--provider-tool %s: options must be a JSON object, got %q", pt.Alias, opts)
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
