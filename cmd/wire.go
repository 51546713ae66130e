package cmd

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools"
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
	Session  *agent.Session
	Warnings []string
	closers  []func()
	mu       sync.Mutex
	hash     string
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

var _ = context.Background
var _ = fmt.Sprintf
