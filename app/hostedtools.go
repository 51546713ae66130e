package app

import "github.com/agent-dev/agent/providers/registry"

// HostedTools lists the --provider-tool aliases a provider runs (for
// Claude's platforms, those of Anthropic's server tools each runs), nil
// when it runs none.
func HostedTools(provider string) []string {
	if d, ok := registry.Lookup(provider); ok && d.Hosted != nil {
		return d.Hosted.Aliases
	}
	return nil
}
