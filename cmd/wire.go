package cmd

import (
	"context"
	"fmt"
	"path"
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
	Warnings   []string
	Notices    []string
	ResumeHash string
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

// newProvider resolves --provider to an adapter and its default model.
func newProvider(g *Globals, name string) (agent.Provider, string, error) {
	f, ok := providerFactories[name]
	if !ok {
		return nil, "", usagef("unknown provider %q: use one of %s", name, strings.Join(providerNames(), ", "))
	}
	return f(g)
}

// approvalPolicy turns config patterns into the core's NeedsApproval hook.
// A pattern matches the tool name ("github__create_*") or, written
// "server:NAME", every tool of a server.
func approvalPolicy(patterns []string) func(tools.Tool) bool {
	if len(patterns) == 0 {
		return nil
	}
	return func(t tools.Tool) bool {
		for _, p := range patterns {
			if srv, ok := strings.CutPrefix(p, "server:"); ok {
				if ok, _ := path.Match(srv, t.Server); ok {
					return true
				}
				continue
			}
			if ok, _ := path.Match(p, t.Name); ok {
				return true
			}
		}
		return false
	}
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
