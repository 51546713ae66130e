package anthropic

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/provider"
)

// platformTools are Anthropic's server tools each platform serving Claude
// runs, from Anthropic's platform availability table
// (platform.claude.com/docs/en/agents-and-tools/tool-use/overview, and
// the MCP connector page: "not currently available on Amazon Bedrock or
// Vertex AI"): web fetch, code execution and the MCP connector run only
// on the Claude API; web search runs on Vertex AI too, not on Bedrock.
var platformTools = map[string][]string{
	providerName: {"code_execution", "mcp", "web_fetch", "web_search"},
	"vertex":     {"web_search"},
	"bedrock":    {},
}

// platformNames are the platforms as people name them.
var platformNames = map[string]string{providerName: "the Claude API", "vertex": "Vertex AI", "bedrock": "Amazon Bedrock"}

// PlatformTools lists the provider-tool aliases a platform serving Claude
// runs ("anthropic", "vertex", "bedrock"); ok is false for another name.
func PlatformTools(platform string) (tools []string, ok bool) {
	t, ok := platformTools[platform]
	return slices.Clone(t), ok
}

// rawAlias names the server tool a raw definition is, by its type
// ("web_fetch_20250910" is web_fetch; "mcp_toolset" the MCP connector).
func rawAlias(pt agent.ProviderTool) string {
	o, err := parseObject(pt.Raw)
	if err != nil {
		return ""
	}
	var typ string
	_ = json.Unmarshal(o.get("type"), &typ)
	if typ == "mcp_toolset" {
		return "mcp"
	}
	for _, a := range SupportedAliases() {
		if strings.HasPrefix(typ, a+"_") {
			return a
		}
	}
	return ""
}

// readOnlyTool: web search and web fetch read the web, the tool search
// tools read the request's own tools; code execution runs code and the
// MCP connector calls a server's tools, which may act.
func readOnlyTool(pt agent.ProviderTool) bool {
	if len(pt.Raw) == 0 {
		return pt.Alias == "web_search" || pt.Alias == "web_fetch"
	}
	if a := rawAlias(pt); a == "web_search" || a == "web_fetch" {
		return true
	}
	o, err := parseObject(pt.Raw)
	if err != nil {
		return false
	}
	var typ string
	_ = json.Unmarshal(o.get("type"), &typ)
	return strings.HasPrefix(typ, "tool_search_tool_")
}

// HostedOn is the Messages API's server tools as a platform serving
// Claude runs them ("anthropic", "vertex", "bedrock"): the aliases it runs,
// and a check that refuses the others, naming the platform and the tool.
func HostedOn(platform string) *provider.Hosted {
	have, _ := PlatformTools(platform)
	return &provider.Hosted{Aliases: have, ReadOnly: readOnlyTool, Validate: func(pts []agent.ProviderTool) error {
		if err := ValidateProviderTools(pts); err != nil {
			return err
		}
		for _, pt := range pts {
			alias := pt.Alias
			if len(pt.Raw) > 0 {
				alias = rawAlias(pt)
			}
			if alias == "" || slices.Contains(have, alias) {
				continue
			}
			there := "none"
			if len(have) > 0 {
				there = strings.Join(have, ", ")
			}
			return fmt.Errorf("provider tool %s is not available on %s (Anthropic's platform availability table); its server tools there: %s",
				alias, platformNames[platform], there)
		}
		return nil
	}}
}
