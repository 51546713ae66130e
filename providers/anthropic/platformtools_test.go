package anthropic_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/provider"
)

func TestProviderToolsPerPlatform(t *testing.T) {
	t.Parallel()
	onVertex, onBedrock, direct := anthropic.HostedOn("vertex"), anthropic.HostedOn("bedrock"), anthropic.Hosted()
	mcp := agent.ProviderTool{Alias: "mcp", Options: json.RawMessage(`{"name":"d","url":"https://example.com/mcp"}`)}
	for _, c := range []struct {
		p    *provider.Hosted
		pt   agent.ProviderTool
		want string
	}{
		{onVertex, agent.ProviderTool{Alias: "web_search"}, ""},
		{onVertex, agent.ProviderTool{Alias: "web_fetch"}, "provider tool web_fetch is not available on Vertex AI"},
		{onVertex, agent.ProviderTool{Alias: "code_execution"}, "provider tool code_execution is not available on Vertex AI"},
		{onVertex, mcp, "provider tool mcp is not available on Vertex AI"},
		{onVertex, agent.ProviderTool{Raw: json.RawMessage(`{"type":"code_execution_20250825","name":"code_execution"}`)}, "provider tool code_execution is not available on Vertex AI"},
		{onBedrock, agent.ProviderTool{Alias: "web_search"}, "provider tool web_search is not available on Amazon Bedrock (Anthropic's platform availability table); its server tools there: none"},
		{direct, agent.ProviderTool{Alias: "web_fetch"}, ""},
		{direct, mcp, ""},
	} {
		err := c.p.Validate([]agent.ProviderTool{c.pt})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.pt, err, c.want)
		}
	}
	if tools, ok := anthropic.PlatformTools("vertex"); !ok || strings.Join(tools, ",") != "web_search" || strings.Join(onVertex.Aliases, ",") != "web_search" {
		t.Errorf("vertex tools %v %v", tools, ok)
	}
}
