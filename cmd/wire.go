package cmd

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/store"
	"github.com/agent-dev/agent/tools"
	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// providerFactory builds a provider for a resolved config. Each adapter
// registers one per name it answers to (see provider_*.go).
type providerFactory func(g *Globals) (agent.Provider, string, error)

var providerFactories = map[string]providerFactory{}

func providerNames() []string {
	var out []string
	for n := range providerFactories {
		out = append(out, n)
	}
	sortStrings(out)
	return out
}

// runtime is a wired session plus what must be closed after it.
type runtime struct {
	Session       *agent.Session
	ProviderLabel string
	DB            *store.DB
	Store         *store.Session
	MCP           *mcptools.Manager
	// Warnings are shown once at start; Notices come from MCP servers.
	Warnings []string
	Notices  []string
	// Alerts carries errors outside a turn to the TUI (nil in -p mode);
	// named are the servers named with --mcp.
	Alerts chan string
	named  []string
	// approval is the require_approval policy; approvalChecked says its
	// patterns were checked against the tools.
	approval        *tools.Approval
	approvalChecked bool
	ResumeHash      string
	// Note is shown in the status bar (the demo says so there).
	Note    string
	closers []func()
	mu      sync.Mutex
	hash    string
}

func (r *runtime) Close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
}

func (r *runtime) LastToolsHash() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hash
}

// newProvider resolves --provider to an adapter and its default model. The
// default model comes back with a missing-key error too, so figures that
// depend on the model (the over-threshold warning of agent tools) do not
// change with whether a key is set.
func newProvider(g *Globals, name string) (agent.Provider, string, error) {
	f, ok := providerFactories[name]
	if !ok {
		return nil, "", usagef("unknown provider %q: use one of %s", name, strings.Join(providerNames(), ", "))
	}
	return f(g)
}

// approvalPolicy turns config patterns into the core's NeedsApproval hook
// (tools.Approval: every name of a tool, or "server:NAME").
func approvalPolicy(patterns []string) (*tools.Approval, func(tools.Tool) bool, error) {
	if len(patterns) == 0 {
		return nil, nil, nil
	}
	a, err := tools.NewApproval(patterns)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	return a, a.Needs, nil
}

// unmatchedApprovals returns a warning for each require_approval pattern
// that matches no tool: the calls it was meant to hold would run without
// asking. ok is false while a server is still starting (its tools are not
// known yet), to be asked again later.
func (rt *runtime) unmatchedApprovals() (warnings []string, ok bool) {
	if rt.approval == nil {
		return nil, true
	}
	var servers []string
	if rt.MCP != nil {
		for _, st := range rt.MCP.Status() {
			if st.State == mcptools.StateStarting && st.Tools == 0 {
				return nil, false // its tools are not known yet (none cached)
			}
			servers = append(servers, st.Name)
		}
	}
	for _, p := range rt.approval.Unmatched(rt.Session.Tools.All(), servers) {
		warnings = append(warnings, fmt.Sprintf("require_approval pattern %q matches no tool of the configured servers: check its spelling (a tool's wire name, the server's own tool name, SERVER__TOOL or server:SERVER all work)", p))
	}
	return warnings, true
}

// toolsHash is the hash of the tools array the provider would render now.
func toolsHash(s *agent.Session) string {
	type renderer interface {
		ToolsHash(req *agent.Request) (string, error)
	}
	if r, ok := s.Provider.(renderer); ok {
		h, err := r.ToolsHash(s.BuildRequest())
		if err == nil {
			return h
		}
	}
	return ""
}

var _ = context.Background
var _ = fmt.Sprintf
