package anthropic

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/agent-dev/agent/agent"
)

// Versioned types the aliases map to, and the beta header each needs.
const (
	webSearchType     = "web_search_20250305"
	webFetchType      = "web_fetch_20250910"
	codeExecutionType = "code_execution_20250825"
	webFetchBeta      = "web-fetch-2025-09-10"
	codeExecutionBeta = "code-execution-2025-08-25"
	// mcpBeta is the current MCP connector (mcp_servers + an mcp_toolset
	// tool); the 2025-04-04 version with tool_configuration is deprecated.
	mcpBeta = "mcp-client-2025-11-20"
)

var aliases = map[string]bool{"web_search": true, "web_fetch": true, "code_execution": true, "mcp": true}

// SupportedAliases lists the provider-tool aliases this adapter maps.
func SupportedAliases() []string {
	out := make([]string, 0, len(aliases))
	for a := range aliases {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// ValidateProviderTools checks provider tools before any request is made:
// an unknown alias or malformed options fail here, naming what is available.
func ValidateProviderTools(pts []agent.ProviderTool) error {
	for _, pt := range pts {
		if len(pt.Raw) > 0 {
			o, err := parseObject(pt.Raw)
			if err != nil {
				return fmt.Errorf("provider tool: raw definition is not a JSON object: %w", err)
			}
			if len(o.get("type")) == 0 {
				return fmt.Errorf(`provider tool: raw definition needs a "type"`)
			}
			continue
		}
		if !aliases[pt.Alias] {
			return fmt.Errorf("provider tool %q is not supported by anthropic: available aliases are %s, or pass a raw JSON tool definition",
				pt.Alias, strings.Join(SupportedAliases(), ", "))
		}
		if len(pt.Options) > 0 {
			if _, err := parseObject(pt.Options); err != nil {
				return fmt.Errorf("provider tool %s: options must be a JSON object: %w", pt.Alias, err)
			}
		}
		if pt.Alias == "mcp" {
			var m mcpOptions
			_ = json.Unmarshal(pt.Options, &m)
			if m.Name == "" || m.URL == "" {
				return fmt.Errorf(`provider tool mcp: options need "name" and "url", e.g. mcp:{"name":"docs","url":"https://example.com/mcp"}`)
			}
			// The connector runs calls without asking: refuse rather than
			// silently drop an approval the user asked for.
			switch string(m.RequireApproval) {
			case "", "null", "false", `"never"`:
			default:
				return fmt.Errorf(`provider tool mcp: Anthropic's MCP connector cannot ask for approval (require_approval); limit the server with "allowed_tools" instead`)
			}
		}
	}
	return nil
}

type mcpOptions struct {
	Name               string   `json:"name"`
	URL                string   `json:"url"`
	AuthorizationToken string   `json:"authorization_token"`
	TokenEnv           string   `json:"token_env"`
	AllowedTools       []string `json:"allowed_tools"`
	// RequireApproval is OpenAI's vocabulary; only "never" can be honoured here.
	RequireApproval json.RawMessage `json:"require_approval"`
	// DeferLoading defers the server's tools behind the tool search tool
	// (--defer); it applies when the request carries that tool.
	DeferLoading bool `json:"defer_loading"`
}

// renderedProviderTools is what the provider tools add to a request.
type renderedProviderTools struct {
	tools []json.RawMessage
	// passthrough[i] is set when tools[i] is a raw user definition;
	// deferred[i] when its tools are deferred (no cache_control on it).
	passthrough []bool
	deferred    []bool
	mcpServers  []json.RawMessage
	betas       []string
	// hasSearchTool is set when a raw definition brings its own tool search
	// tool, which then replaces the default one.
	hasSearchTool bool
}

func renderProviderTools(pts []agent.ProviderTool, searching bool) (renderedProviderTools, error) {
	var r renderedProviderTools
	// Enabling an alias again replaces its options: keep the last of each.
	last := map[string]int{}
	for i, pt := range pts {
		if pt.Alias != "" && len(pt.Raw) == 0 {
			last[pt.Alias] = i
		}
	}
	beta := map[string]bool{}
	addBeta := func(b string) {
		if !beta[b] {
			beta[b] = true
			r.betas = append(r.betas, b)
		}
	}
	for i, pt := range pts {
		if len(pt.Raw) > 0 {
			typ := blockType(pt.Raw)
			if strings.HasPrefix(typ, "tool_search_tool_") {
				r.hasSearchTool = true
			}
			switch {
			case strings.HasPrefix(typ, "web_fetch_"):
				addBeta(webFetchBeta)
			case strings.HasPrefix(typ, "code_execution_"):
				addBeta(codeExecutionBeta)
			case typ == "mcp_toolset":
				addBeta(mcpBeta)
			}
			r.tools = append(r.tools, compact(pt.Raw))
			r.passthrough = append(r.passthrough, true)
			r.deferred = append(r.deferred, false)
			continue
		}
		if last[pt.Alias] != i {
			continue
		}
		opts := object{}
		if len(pt.Options) > 0 {
			o, err := parseObject(pt.Options)
			if err != nil {
				return r, fmt.Errorf("provider tool %s: %w", pt.Alias, err)
			}
			opts = o
		}
		switch pt.Alias {
		case "web_search", "web_fetch", "code_execution":
			typ := map[string]string{"web_search": webSearchType, "web_fetch": webFetchType, "code_execution": codeExecutionType}[pt.Alias]
			def := object{{"type", mustMarshal(typ)}, {"name", mustMarshal(pt.Alias)}}
			for _, f := range opts {
				def = def.set(f.Key, f.Value)
			}
			b, err := def.MarshalJSON()
			if err != nil {
				return r, fmt.Errorf("provider tool %s: %w", pt.Alias, err)
			}
			r.tools = append(r.tools, b)
			r.passthrough = append(r.passthrough, false)
			r.deferred = append(r.deferred, false)
			switch pt.Alias {
			case "web_fetch":
				addBeta(webFetchBeta)
			case "code_execution":
				addBeta(codeExecutionBeta)
			}
		case "mcp":
			var m mcpOptions
			if err := json.Unmarshal(pt.Options, &m); err != nil {
				return r, fmt.Errorf("provider tool mcp: %w", err)
			}
			token := m.AuthorizationToken
			if token == "" && m.TokenEnv != "" {
				token = os.Getenv(m.TokenEnv)
			}
			srv := object{{"type", mustMarshal("url")}, {"url", mustMarshal(m.URL)}, {"name", mustMarshal(m.Name)}}
			if token != "" {
				srv = append(srv, field{"authorization_token", mustMarshal(token)})
			}
			r.mcpServers = append(r.mcpServers, mustMarshal(srv))
			ts := object{{"type", mustMarshal("mcp_toolset")}, {"mcp_server_name", mustMarshal(m.Name)}}
			// Deferral goes on the toolset's default_config, never on the
			// tools one by one (the API's MCP integration rule).
			deferTools := m.DeferLoading && searching
			switch {
			case len(m.AllowedTools) > 0:
				// An allowlist: everything off by default, the named tools on.
				cfg := object{}
				for _, t := range m.AllowedTools {
					cfg = append(cfg, field{t, json.RawMessage(`{"enabled":true}`)})
				}
				def := json.RawMessage(`{"enabled":false}`)
				if deferTools {
					def = json.RawMessage(`{"enabled":false,"defer_loading":true}`)
				}
				ts = append(ts, field{"default_config", def}, field{"configs", mustMarshal(cfg)})
			case deferTools:
				ts = append(ts, field{"default_config", json.RawMessage(`{"defer_loading":true}`)})
			}
			r.tools = append(r.tools, mustMarshal(ts))
			r.passthrough = append(r.passthrough, false)
			r.deferred = append(r.deferred, deferTools)
			addBeta(mcpBeta)
		}
	}
	return r, nil
}
