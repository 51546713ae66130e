package app

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
	mcptools "github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/mcp/oauth"
)

// MCPServers reads the configured MCP servers, later sources winning: the
// user's mcp.json, mcpServers inline in the config file, the project's
// ./.mcp.json when the directory is trusted, then --mcp-config (which must
// exist). Open reads them once.
func (s Settings) MCPServers() (map[string]config.MCPServer, error) {
	paths := config.DefaultMCPConfigPaths(s.Workdir)
	user := paths[:len(paths)-1]
	out, err := config.LoadMCPConfig(user...)
	if err != nil {
		return nil, usage(err)
	}
	layers := []func() (map[string]config.MCPServer, error){
		func() (map[string]config.MCPServer, error) {
			if len(s.Config.MCPServers) == 0 {
				return nil, nil
			}
			return config.ParseMCPServers(s.Config.MCPServers, s.ConfigPath)
		},
		// The project's, only in a trusted directory and as a project may
		// have them (Settings.applyProject).
		func() (map[string]config.MCPServer, error) {
			return s.projectServers, untrustedKeyPaths(s.projectServers)
		},
		func() (map[string]config.MCPServer, error) {
			if s.MCPConfig == "" {
				return nil, nil
			}
			return config.ReadMCPConfigFile(s.MCPConfig)
		},
	}
	for _, layer := range layers {
		servers, err := layer()
		if err != nil {
			return nil, usage(err)
		}
		for n, srv := range servers {
			out[n] = srv
		}
	}
	return out, nil
}

// mcpLogLevel is the level asked of servers that log (mcp_log_level,
// default warning).
func (s Settings) mcpLogLevel() string {
	if s.MCPLogLevel != "" {
		return s.MCPLogLevel
	}
	return "warning"
}

// startMCP connects the servers of a run: every enabled configured server
// plus those named (configured or preset), with --defer applied to the
// named ones (to all when none is named). Servers that fail are returned
// as warnings; err is for a bad config or name.
func startMCP(ctx context.Context, s Settings, configured map[string]config.MCPServer, o mcptools.Options) (*mcptools.Manager, []error, error) {
	m, _, warnings, err := startMCPServers(ctx, s, configured, o)
	return m, warnings, err
}

// startMCPServers is startMCP, also returning the servers it started.
func startMCPServers(ctx context.Context, s Settings, configured map[string]config.MCPServer, o mcptools.Options) (*mcptools.Manager, []config.MCPServer, []error, error) {
	m, servers, err := newMCPManager(s, configured, o)
	if err != nil {
		return nil, nil, nil, err
	}
	return m, servers, m.Start(ctx), nil
}

// newMCPManager prepares the manager of a run's servers (startMCP), not
// yet started.
func newMCPManager(s Settings, configured map[string]config.MCPServer, o mcptools.Options) (*mcptools.Manager, []config.MCPServer, error) {
	servers, err := config.SelectMCP(configured, config.MCPPresets(s.Workdir), s.MCP)
	if err != nil {
		return nil, nil, usage(err)
	}
	if s.Defer == "true" {
		servers = config.DeferAll(servers, s.MCP)
	}
	o.Workdir, o.ClientName, o.MaxToolResultBytes, o.PidDir = s.Workdir, "agent", s.MaxToolResultBytes, serverPidDir()
	return mcptools.NewManager(servers, o), servers, nil
}

// MCPTools returns the tools of the configured servers plus those named
// with --mcp (for agent tools search), to read, not to call: a server
// whose catalog is cached is answered for by it and not started
// (listing.go); the others are started, and stopped and waited for
// before it returns. (They used to stop when ctx ended, after the command
// had returned: the processes and their readers outlived it.)
func MCPTools(ctx context.Context, s Settings, version string) ([]tools.Tool, []error, error) {
	configured, err := s.MCPServers()
	if err != nil {
		return nil, nil, err
	}
	cache, closeCache, cerr := openCatalogCache(ctx, s)
	defer closeCache()
	m, warnings, err := startMCP(ctx, s, configured, mcptools.Options{ClientVersion: version, Cache: forListing(cache, eagerServers(configured), s.Refresh)})
	if err != nil {
		return nil, nil, err
	}
	defer m.Close()
	if cerr != nil {
		warnings = append([]error{cerr}, warnings...)
	}
	return m.Tools(false), warnings, nil
}

// MCPEntry is one server of agent mcp list.
type MCPEntry struct {
	mcptools.Status
	Preset    bool      `json:"preset,omitempty"`
	ToolNames []MCPTool `json:"tool_list,omitempty"`
	// SignIn is a remote server's OAuth sign-in state ("signed in",
	// "expired", "not signed in", "signs in on use" for a grant that needs
	// no browser; "-" for a server without OAuth).
	SignIn string `json:"sign_in"`
	// Grant is a remote server's OAuth grant: authorization_code,
	// client_credentials or cross_app.
	Grant string `json:"grant,omitempty"`
	// TokenStore is where a remote server's sign-in is kept: "keychain"
	// or "file" (token_store); keptIn says it for people.
	TokenStore string `json:"token_store,omitempty"`
	keptIn     string
}

// MCPTool is one tool of an MCPEntry.
type MCPTool struct {
	Name       string `json:"name"`
	ServerTool string `json:"server_tool"`
	Deferred   bool   `json:"deferred"`
}

// MCPList lists the configured servers (and the presets named with --mcp,
// or every preset when all) with their tool counts: from a server's
// cached catalog without starting it ("cached"), else by connecting it
// within timeout (listing.go says which start). Other presets are listed
// as "available" without being started. A store that cannot be opened
// leaves every server to be connected, as without the cache: the listing
// is right, only slower.
func MCPList(ctx context.Context, s Settings, all bool, timeout time.Duration, version string) ([]MCPEntry, error) {
	configured, err := s.MCPServers()
	if err != nil {
		return nil, err
	}
	cache, closeCache, _ := openCatalogCache(ctx, s)
	defer closeCache()
	presets := config.MCPPresets(s.Workdir)
	named, err := config.ResolveMCPIn(configured, presets, s.MCP)
	if err != nil {
		return nil, usage(err)
	}
	merged := config.MergeMCP(configured, presets)
	names := make([]string, 0, len(merged))
	for n := range merged {
		names = append(names, n)
	}
	slices.Sort(names)
	var start []config.MCPServer
	for _, n := range names {
		_, isConfigured := configured[n]
		isNamed := slices.ContainsFunc(named, func(x config.MCPServer) bool { return x.Name == n })
		if isConfigured || isNamed || all {
			start = append(start, merged[n])
		}
	}
	if s.Defer == "true" {
		start = config.DeferAll(start, s.MCP)
	}
	// A remote server with no sign-in kept is connected even with its
	// catalog cached: only its answer tells whether it needs one (a
	// catalog listed while signed in outlives agent mcp logout), and the
	// SIGN-IN column is what this list is read for.
	live := eagerServers(configured)
	for _, srv := range start {
		if oauth.New(srv, oauthOptions(s, nil)).State() == oauth.StateNotSignedIn {
			live[srv.Name] = true
		}
	}
	m := mcptools.NewManager(start, mcptools.Options{
		Workdir: s.Workdir, StartTimeout: timeout, ClientName: "agent", ClientVersion: version,
		Logger: slog.New(slog.DiscardHandler), OAuth: oauthOptions(s, nil), PidDir: serverPidDir(),
		Cache: forListing(cache, live, s.Refresh),
	})
	defer m.Close()
	m.Start(ctx)
	byServer := map[string][]tools.Tool{}
	for _, t := range m.Tools(false) {
		byServer[t.Server] = append(byServer[t.Server], t)
	}
	started := map[string]mcptools.Status{}
	for _, st := range m.Status() {
		st.State = listedState(st.State)
		started[st.Name] = st
	}
	needs := needSignIn(m)
	var entries []MCPEntry
	for _, n := range names {
		srv := merged[n]
		st, ok := started[n]
		if !ok {
			st = mcptools.Status{Name: n, Transport: srv.Type, Source: srv.Source, State: mcptools.State("available"), Target: mcpTarget(srv), Error: srv.Unavailable,
				Protocol: srv.ProtocolSetting()}
		}
		e := MCPEntry{Status: st, Preset: srv.Source == "preset", SignIn: string(oauth.StateOff)}
		auth := m.Authorizer(n)
		if auth == nil && !ok {
			auth = oauth.New(srv, oauthOptions(s, nil)) // a preset not started
		}
		if auth != nil {
			e.SignIn, e.Grant, e.TokenStore, e.keptIn = string(signInState(auth, st.State, needs[n])), auth.Grant(), auth.Store().Kind(), auth.Store().Where()
		}
		e.Deferred = 0
		for _, t := range byServer[n] {
			ref, _ := m.Lookup(t.Name)
			e.ToolNames = append(e.ToolNames, MCPTool{Name: t.Name, ServerTool: ref.Tool, Deferred: t.Deferred})
			if t.Deferred {
				e.Deferred++
			}
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// signInState is a remote server's sign-in state as lists show it. One
// that runs with no token kept answered without asking for a sign-in: it
// has none to show ("-"), not "not signed in", which reads as a step left
// to do. So has one that failed for another reason (nothing answers at
// its URL): "not signed in" beside "connection refused" sent the user to
// agent mcp login. needs: its start failed for want of a sign-in. (A
// server listed from its cache has a token kept, or needs none: MCPList
// connects one that has none.)
func signInState(auth *oauth.Authorizer, state mcptools.State, needs bool) oauth.State {
	s := auth.State()
	if s == oauth.StateNotSignedIn && (state == mcptools.StateRunning || (state == mcptools.StateFailed && !needs)) {
		return oauth.StateOff
	}
	return s
}

// needSignIn names the servers whose start failed for want of a sign-in.
func needSignIn(m *mcptools.Manager) map[string]bool {
	out := map[string]bool{}
	for _, err := range m.SignInNeeded() {
		if se := (*oauth.SignInError)(nil); errors.As(err, &se) {
			out[se.Server] = true
		}
	}
	return out
}

// signInText is a sign-in state for people: one that needs no browser
// says which grant gets the token ("signs in on use (client credentials)").
func signInText(state, grant string) string {
	if state != string(oauth.StateOnUse) {
		return state
	}
	switch grant {
	case config.GrantClientCredentials:
		return state + " (client credentials)"
	case config.GrantCrossApp:
		return state + " (cross-app access)"
	case config.GrantWorkloadIdentity:
		return state + " (workload identity)"
	}
	return state
}

func mcpTarget(s config.MCPServer) string {
	if s.Type == config.MCPStdio {
		return strings.Join(append([]string{s.Command}, s.Args...), " ")
	}
	return s.URL
}

// alwaysLoad is the set of tools (by their name in the session) that
// --defer auto keeps active: the configured servers' alwaysLoad lists,
// read once.
func alwaysLoad(configured map[string]config.MCPServer, m *mcptools.Manager, set *tools.Set) map[string]bool {
	keep := map[string]bool{}
	if m == nil {
		return keep
	}
	for _, t := range set.All() {
		ref, ok := m.Lookup(t.Name)
		if ok && slices.Contains(configured[ref.Server].AlwaysLoad, ref.Tool) {
			keep[t.Name] = true
		}
	}
	return keep
}
