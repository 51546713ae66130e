package app

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/hooks"
)

// applyProject is the project layer of Load: the project's files are used
// only in a trusted directory (or with --trust for one run), and even then
// a project cannot loosen what the user set, name where credentials go or
// which variable to read, or replace the user's servers. What it does
// change of the provider, model or system prompt is said in a warning.
func (s *Settings) applyProject(trustFlag bool) error {
	trusted, p, err := Trusted(s.Workdir)
	if err != nil {
		return err
	}
	s.Project = p
	if p.Empty() {
		return nil
	}
	if !trusted && !trustFlag {
		// A directory trusted with other files says so: "it is not
		// trusted" read as a lost trust, not as a change to look at.
		why := "it is not trusted"
		if trustedBefore(p) {
			why = "they changed since you trusted it"
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("the project files of this directory (%s) are not used: %s; review them, then run `agent trust` (or pass --trust for one run)",
			strings.Join(p.Files, ", "), why))
		return nil
	}
	s.Trusted = true
	path := config.ProjectPath(s.Workdir)
	proj, err := config.Read(path, false)
	if err != nil {
		return usage(err)
	}
	var inline map[string]config.MCPServer
	if proj != nil {
		refuse := func(key string, set bool, why string) bool {
			if set {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s in %s is ignored: %s; set it in your own config", key, path, why))
			}
			return set
		}
		if refuse("base_url", proj.BaseURL != "", "a project cannot redirect your API key") {
			proj.BaseURL = ""
		}
		if refuse("oauth_client_metadata_url", proj.OAuthClientMetadataURL != "", "a project cannot say where sign-ins go") {
			proj.OAuthClientMetadataURL = ""
		}
		if refuse("token_store", proj.TokenStore != "", "a project cannot say where your sign-ins are kept") {
			proj.TokenStore = ""
		}
		if refuse("project_env_allow", len(proj.ProjectEnvAllow) > 0, "a project cannot allow itself your environment") {
			proj.ProjectEnvAllow = nil
		}
		if refuse("elicitation", proj.Elicitation == "accept-defaults", "a project cannot answer MCP servers for you") {
			proj.Elicitation = ""
		}
		if refuse("approve_read_only", proj.ApproveReadOnly != nil && *proj.ApproveReadOnly, "a project cannot relax your approvals") {
			proj.ApproveReadOnly = nil
		}
		if refuse("telemetry", proj.Telemetry != nil, "a project cannot decide what leaves your machine") {
			proj.Telemetry = nil
		}
		if refuse("telemetry_log_content", proj.TelemetryLogContent != nil, "a project cannot decide what leaves your machine") {
			proj.TelemetryLogContent = nil
		}
		var kept []string
		for _, spec := range proj.ProviderTools {
			if key := credentialKey(spec); key != "" {
				refuse(fmt.Sprintf("provider tool %q", spec), true, fmt.Sprintf("its %q names where credentials go or which variable to read", key))
				continue
			}
			kept = append(kept, spec)
		}
		proj.ProviderTools = kept
		// A project's approvals add to the user's, never replace them.
		if len(proj.RequireApproval) > 0 {
			proj.RequireApproval = union(s.RequireApproval, proj.RequireApproval)
		}
		// A project's hooks run besides the user's, never in their place.
		if len(proj.Hooks) > 0 {
			if err := checkHooks(path, proj.Hooks); err != nil {
				return err
			}
			proj.Hooks = hooks.Concat(s.Hooks, proj.Hooks)
		}
		if refuse("permissions.allow", len(proj.Permissions.Allow) > 0, "a project cannot allow tools for you (answer \"always for this project\" in the approval dialog)") {
			proj.Permissions.Allow = nil
		}
		if len(proj.Permissions.Ask) > 0 || len(proj.Permissions.Deny) > 0 {
			proj.Permissions = config.Permissions{Allow: s.Permissions.Allow,
				Ask: union(s.Permissions.Ask, proj.Permissions.Ask), Deny: union(s.Permissions.Deny, proj.Permissions.Deny)}
		}
		if m := proj.PermissionMode; m != "" && m != s.PermissionMode {
			if refuse("permission_mode "+m, !stricter(m, s.PermissionMode), "a project may only make the permission mode stricter") {
				proj.PermissionMode = ""
			} else {
				s.Warnings = append(s.Warnings, fmt.Sprintf("the trusted project (%s) sets the permission mode: %s", path, m))
			}
		}
		if len(proj.MCPServers) > 0 {
			inline, err = config.ParseMCPServersWith(proj.MCPServers, path, s.projectLookup(path))
			if err != nil {
				return usage(err)
			}
			proj.MCPServers = nil
		}
		for _, c := range []struct{ key, before, after string }{
			{"provider", s.Provider, proj.Provider}, {"model", s.Model, proj.Model}, {"system prompt", s.System, proj.System},
		} {
			if c.after != "" && c.after != c.before {
				what := c.after
				if c.key == "system prompt" {
					what = fmt.Sprintf("its own (%d characters)", len(c.after))
				}
				s.ProjectSets = append(s.ProjectSets, c.key)
				if !s.Flags.preview { // the trust question lists it among the settings
					s.Warnings = append(s.Warnings, fmt.Sprintf("the trusted project (%s) sets the %s: %s", path, c.key, what))
				}
			}
		}
		config.Merge(&s.Config, *proj)
	}
	return s.projectMCP(inline)
}

// projectMCP reads the project's .mcp.json (with its inline servers) and
// refuses a server named like one of the user's.
func (s *Settings) projectMCP(inline map[string]config.MCPServer) error {
	paths := config.DefaultMCPConfigPaths(s.Workdir)
	user, file := paths[:len(paths)-1], paths[len(paths)-1]
	mine, err := config.LoadMCPConfig(user...)
	if err != nil {
		return usage(err)
	}
	if len(s.Config.MCPServers) > 0 {
		in, err := config.ParseMCPServers(s.Config.MCPServers, s.ConfigPath)
		if err != nil {
			return usage(err)
		}
		for n, srv := range in {
			mine[n] = srv
		}
	}
	servers, err := config.LoadMCPConfigWith(s.projectLookup(file), file)
	if err != nil {
		return usage(err)
	}
	for n, srv := range inline {
		servers[n] = srv
	}
	s.projectServers = map[string]config.MCPServer{}
	for _, n := range slices.Sorted(maps.Keys(servers)) {
		if u, ok := mine[n]; ok {
			s.Warnings = append(s.Warnings, fmt.Sprintf("MCP server %s of the project (%s) is refused: it would replace yours from %s; rename it in the project", n, servers[n].Source, u.Source))
			continue
		}
		s.projectServers[n] = servers[n]
	}
	return nil
}

// projectLookup expands ${VAR} in a project's server only for the
// variables the user's project_env_allow names; any other is left empty,
// with a warning, so a project cannot send the user's secrets to a host
// or a command of its choosing. The trust question's preview expands
// nothing (nil): it shows the values as written, and a ${VAR} only in
// another's default (${A:-${B}}) must stay there to be listed.
func (s *Settings) projectLookup(source string) func(string) (string, bool) {
	if s.Flags.preview {
		return nil
	}
	allow := s.ProjectEnvAllow
	warned := map[string]bool{}
	return func(name string) (string, bool) {
		if slices.Contains(allow, name) {
			return os.LookupEnv(name)
		}
		if !warned[name] {
			warned[name] = true
			s.Warnings = append(s.Warnings, fmt.Sprintf("${%s} in %s is not expanded: a project may read only the variables your config lists in project_env_allow", name, source))
		}
		return "", false
	}
}

// credentialKey returns the key of a provider tool spec (NAME:{options} or
// a raw JSON definition) that names where credentials go or which variable
// to read, "" when none does.
func credentialKey(spec string) string {
	raw := spec
	if !strings.HasPrefix(strings.TrimSpace(spec), "{") {
		_, opts, ok := strings.Cut(spec, ":")
		if !ok {
			return ""
		}
		raw = opts
	}
	var v any
	if json.Unmarshal([]byte(raw), &v) != nil {
		return ""
	}
	return findKey(v)
}

// credentialKeys name a place credentials are sent to or read from.
var credentialKeys = []string{"token_env", "url", "server_url", "base_url", "headers", "authorization_token", "authorization", "api_key_env"}

func findKey(v any) string {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if slices.Contains(credentialKeys, strings.ToLower(k)) {
				return k
			}
			if k := findKey(e); k != "" {
				return k
			}
		}
	case []any:
		for _, e := range x {
			if k := findKey(e); k != "" {
				return k
			}
		}
	}
	return ""
}

// union is a followed by the entries of b it lacks.
func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// stricter reports whether permission mode a refuses or asks at least as
// much as b: bypass, accept-reads, default, plan, in that order.
func stricter(a, b string) bool {
	rank := func(m string) int {
		return slices.Index([]string{"bypass", "accept-reads", "default", "plan"}, cmp.Or(m, "default"))
	}
	return rank(a) >= rank(b)
}
