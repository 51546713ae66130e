// Package registry lists every provider the --provider flag names, and is
// the one place the application builds a provider from: adding a provider
// is its package (with a Descriptor) plus one line in All. The core
// (agent, tools) never imports it; app does.
package registry

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/azure"
	"github.com/agent-dev/agent/providers/bedrock"
	"github.com/agent-dev/agent/providers/gemini"
	"github.com/agent-dev/agent/providers/openaichat"
	"github.com/agent-dev/agent/providers/openairesponses"
	"github.com/agent-dev/agent/providers/provider"
	"github.com/agent-dev/agent/providers/vertex"
)

// All is every provider, in the order help texts name their hosted tools.
func All() []provider.Descriptor {
	return slices.Concat([]provider.Descriptor{
		anthropic.Descriptor(),       // the Messages API
		openairesponses.Descriptor(), // "openai": the Responses API
		gemini.Descriptor(),          // the Gemini API
		vertex.Descriptor(),          // Claude on Vertex AI
		vertex.GeminiDescriptor(),    // Gemini on Vertex AI
		bedrock.Descriptor(),         // Claude on Amazon Bedrock
		azure.Descriptor(),           // Azure OpenAI (Responses)
	}, openaichat.Descriptors()) // Chat Completions servers: openai-chat, gemini-openai, ollama, ...
}

// Lookup finds a provider by its --provider name.
func Lookup(name string) (provider.Descriptor, bool) {
	for _, d := range All() {
		if d.Name == name {
			return d, true
		}
	}
	return provider.Descriptor{}, false
}

// Names lists the --provider values, sorted.
func Names() []string {
	var out []string
	for _, d := range All() {
		out = append(out, d.Name)
	}
	slices.Sort(out)
	return out
}

// UnknownError is a --provider value no descriptor has.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown provider %q: use one of %s", e.Name, strings.Join(Names(), ", "))
}

// MissingKeyError is a provider that needs an API key built without one.
// Running: a running agent switched to it (/model, a profile), where the
// flags and the demo are no way out and an export does not reach it.
type MissingKeyError struct {
	Vars    []string
	Running bool
}

func (e *MissingKeyError) Error() string {
	v := e.Vars[0]
	if len(e.Vars) > 1 {
		v += " (or " + strings.Join(e.Vars[1:], ", ") + ")"
	}
	if e.Running {
		return v + " is not set in this agent's environment: quit, export it, and start agent again"
	}
	return v + " is not set: export it, pick another --provider, or try agent --demo"
}

// New builds the named provider and says its default model. --base-url
// (c.BaseURL) replaces the provider's base-URL variables. The default model
// comes back with a failure too, so figures that depend on the model (the
// over-threshold warning of agent tools) do not change with whether a key
// is set.
func New(ctx context.Context, name string, c provider.Config) (agent.Provider, string, error) {
	d, ok := Lookup(name)
	if !ok {
		return nil, "", &UnknownError{Name: name}
	}
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	if c.BaseURL != "" && len(d.BaseURLEnv) > 0 {
		env, base := c.Getenv, c.BaseURL
		c.Getenv = func(k string) string {
			if slices.Contains(d.BaseURLEnv, k) {
				return base
			}
			return env(k)
		}
	}
	if d.KeyRequired && !slices.ContainsFunc(d.KeyEnv, func(k string) bool { return c.Getenv(k) != "" }) {
		return nil, d.DefaultModel, &MissingKeyError{Vars: d.KeyEnv}
	}
	p, err := d.New(ctx, c)
	if err != nil {
		return nil, d.DefaultModel, err
	}
	return p, d.DefaultModel, nil
}

// Families is the family of each provider's API, for the capability
// table (models.Table.WithFamilies).
func Families() map[string]string {
	out := map[string]string{}
	for _, d := range All() {
		out[d.Name] = d.Family
	}
	return out
}

// Models is t (nil: the built-in table) with the providers' families.
func Models(t *models.Table) *models.Table { return t.WithFamilies(Families()) }

// Home is the provider whose own API serves family's models ("gemini" for
// "google"); "" when none does.
func Home(family string) string {
	for _, d := range All() {
		if d.Home && d.Family == family {
			return d.Name
		}
	}
	return ""
}

// ValidateHosted fails before any request when the named provider cannot
// run a hosted tool in pts; p names the adapter in the message (a provider
// the registry does not list, the demo, has none).
func ValidateHosted(name string, p agent.Provider, pts []agent.ProviderTool) error {
	if len(pts) == 0 {
		return nil
	}
	if d, ok := Lookup(name); ok && d.Hosted != nil {
		return d.Hosted.Validate(pts)
	}
	for _, pt := range pts {
		if pt.Alias != "" {
			var offers []string
			for _, d := range All() {
				if d.Home && d.Hosted != nil {
					offers = append(offers, d.Name+" offers "+strings.Join(d.Hosted.Aliases, ", "))
				}
			}
			return fmt.Errorf("provider tool %q is not supported by %s: it has no hosted tools (%s)", pt.Alias, p.Name(), strings.Join(offers, "; "))
		}
	}
	return nil
}
