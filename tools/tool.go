// Package tools holds the Tool type and the two tool sets of a chat: active
// tools, sent on every request, and deferred tools (the catalog), which stay
// out of the model's context until a search finds them.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/agent-dev/agent/tools/schema"
)

// Result is what running a tool produced.
type Result struct {
	Text    string
	Images  []Image
	IsError bool
}

// Image is binary tool output.
type Image struct {
	MediaType string
	Data      string // base64
}

// Executor runs a tool with its JSON arguments.
type Executor func(ctx context.Context, args json.RawMessage) (Result, error)

// Tool is a name, description, JSON schema and an executor.
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage
	// Server is where the tool comes from (an MCP server name), for display
	// and search; empty for built-in tools.
	Server string
	// Orig is the server's own name for the tool when Name was made from it
	// ("delete_everything" for "bad_2-dcf9__delete_everything").
	Orig string
	// ServerTitle is the server's own description, used by search.
	ServerDescription string
	// Deferred is the tool's own wish; registration may override it.
	Deferred bool
	// AlwaysLoad: the server's config says never to defer it (alwaysLoad),
	// which deferring to fit a provider's tool limit honours too.
	AlwaysLoad bool
	// Tokens is the definition's o200k count when already known (the MCP
	// catalog cache keeps it), so a stable catalog is never counted again;
	// 0 means count when needed.
	Tokens int
	// SchemaChecked: Schema already passed schema.Check (the MCP catalog
	// cache remembers it), so registration does not check it again.
	SchemaChecked bool
	// Annotations are the MCP server's hints (read-only, destructive...),
	// nil when it gave none.
	Annotations *Annotations
	Exec        Executor
}

// Set is the registry of a chat: every tool, each either active or deferred.
// Deferral never changes what a tool may do: Lookup finds tools of both sets.
type Set struct {
	mu       sync.RWMutex
	tools    map[string]*Tool
	order    []string
	deferred map[string]bool
	// perServer counts the registered tools of each server, so replacing
	// a server none of whose tools is registered (every server at start)
	// does not walk every tool.
	perServer map[string]int
	version   uint64
	// allow and deferIf are an agent profile's policy (SetPolicy).
	allow, deferIf func(Tool) bool
	// quarantined holds tools whose schema no provider would accept, by
	// name, in registration order: never sent, listed with their problem.
	quarantined []Quarantined
}

// Quarantined is a tool left out because its input schema is invalid: sent
// to a provider it would make every request a 400.
type Quarantined struct {
	Tool    Tool
	Problem string
}

// Quarantined lists the tools left out for an invalid schema.
func (s *Set) Quarantined() []Quarantined {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Quarantined(nil), s.quarantined...)
}

// SetPolicy filters what later registrations (Add, ReplaceServer) keep:
// a tool allow rejects is not registered at all, neither active nor
// deferred, and a tool deferIf accepts is deferred whatever its options
// say. Either may be nil.
func (s *Set) SetPolicy(allow, deferIf func(Tool) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allow, s.deferIf = allow, deferIf
}

// NewSet returns an empty set.
func NewSet() *Set {
	return &Set{tools: map[string]*Tool{}, deferred: map[string]bool{}, version: versions.Add(1)}
}

// Option overrides a tool's own deferral wish at registration.
type Option func(*regOpts)

type regOpts struct{ deferred *bool }

// Defer forces a tool into (true) or out of (false) the deferred set.
func Defer(v bool) Option { return func(o *regOpts) { o.deferred = &v } }

// Add registers tools. A name registered twice is an error: names must map
// back to one tool.
func (s *Set) Add(opts []Option, ts ...Tool) error {
	var o regOpts
	for _, f := range opts {
		f(&o)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// One allocation for the lot, not one a tool: a server may list
	// thousands. A tool is never moved: appends stay within the capacity.
	buf := make([]Tool, 0, len(ts))
	if len(s.tools) == 0 && len(ts) > 8 {
		// Sized once rather than grown (and rehashed) tool by tool.
		s.tools, s.deferred = make(map[string]*Tool, len(ts)), make(map[string]bool, len(ts))
	}
	for _, t := range ts {
		if t.Name == "" {
			return fmt.Errorf("register tool: empty name")
		}
		if _, dup := s.tools[t.Name]; dup {
			return fmt.Errorf("register tool %q: name already registered", t.Name)
		}
		if s.allow != nil && !s.allow(t) {
			continue
		}
		t := t
		if len(t.Schema) == 0 {
			t.Schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if t.SchemaChecked {
			// Checked when its list was cached: a stable catalog is not
			// checked on every start.
		} else if err := schema.Check(t.Schema); err != nil {
			s.quarantine(t, err.Error())
			continue
		}
		buf = append(buf, t)
		s.tools[t.Name] = &buf[len(buf)-1]
		s.order = append(s.order, t.Name)
		if t.Server != "" {
			if s.perServer == nil {
				s.perServer = map[string]int{}
			}
			s.perServer[t.Server]++
		}
		d := t.Deferred
		if o.deferred != nil {
			d = *o.deferred
		}
		if s.deferIf != nil && s.deferIf(t) {
			d = true
		}
		s.deferred[t.Name] = d
	}
	s.bump()
	return nil
}

// quarantine records t as left out (callers hold s.mu); a name seen again
// replaces its entry.
func (s *Set) quarantine(t Tool, problem string) {
	t.Exec = nil
	for i, x := range s.quarantined {
		if x.Tool.Name == t.Name {
			s.quarantined[i] = Quarantined{t, problem}
			return
		}
	}
	s.quarantined = append(s.quarantined, Quarantined{t, problem})
}

// ReplaceServer swaps every tool of one server for a new list (after a
// tools/list_changed notification). Deferral of tools that stay is kept;
// new tools take the given options.
func (s *Set) ReplaceServer(server string, opts []Option, ts ...Tool) error {
	s.mu.Lock()
	prev := map[string]bool{}
	if server == "" || s.perServer[server] > 0 {
		keep := make([]string, 0, len(s.order))
		for _, n := range s.order {
			if s.tools[n].Server == server {
				prev[n] = s.deferred[n]
				delete(s.tools, n)
				delete(s.deferred, n)
				continue
			}
			keep = append(keep, n)
		}
		s.order = keep
		delete(s.perServer, server)
	}
	var q []Quarantined
	for _, x := range s.quarantined {
		if x.Tool.Server != server {
			q = append(q, x)
		}
	}
	s.quarantined = q
	s.mu.Unlock()
	if err := s.Add(opts, ts...); err != nil {
		return err
	}
	s.mu.Lock()
	for n, d := range prev {
		if _, ok := s.tools[n]; ok {
			s.deferred[n] = d
		}
	}
	// The deferral restored here is part of the change: a reader between
	// Add and this point saw another version.
	s.bump()
	s.mu.Unlock()
	return nil
}

// Remove unregisters a tool; a name not registered is ignored.
func (s *Set) Remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tools[name]; !ok {
		return
	}
	if srv := s.tools[name].Server; srv != "" {
		s.perServer[srv]--
	}
	delete(s.tools, name)
	delete(s.deferred, name)
	for i, n := range s.order {
		if n == name {
			s.order = append(s.order[:i:i], s.order[i+1:]...)
			break
		}
	}
	s.bump()
}

// SetDeferred changes one tool's set.
func (s *Set) SetDeferred(name string, d bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tools[name]; ok {
		s.deferred[name] = d
		s.bump()
	}
}

// Lookup finds a tool in either set.
func (s *Set) Lookup(name string) (*Tool, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tools[name]
	return t, ok
}

// IsDeferred reports whether name is in the deferred set.
func (s *Set) IsDeferred(name string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.deferred[name]
}

// versions numbers the states of every set of the process, so that two
// sets never share a version: a version names one catalog.
var versions atomic.Uint64

// bump gives the set a new version; s.mu is held.
func (s *Set) bump() { s.version = versions.Add(1) }

// Version changes whenever the catalog changes. Versions are unique across
// the sets of a process, and never 0.
func (s *Set) Version() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version
}

// Snapshot returns the version with the active tools (registration order)
// and the deferred tools (by name), all read at once.
func (s *Set) Snapshot() (version uint64, active, deferred []Tool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	// Sized up front: at thousands of tools, growing by appends allocates
	// the catalog's Tool values about twice over.
	nd := 0
	for _, n := range s.order {
		if s.deferred[n] {
			nd++
		}
	}
	if nd > 0 {
		deferred = make([]Tool, 0, nd)
	}
	if len(s.order) > nd {
		active = make([]Tool, 0, len(s.order)-nd)
	}
	for _, n := range s.order {
		if s.deferred[n] {
			deferred = append(deferred, *s.tools[n])
		} else {
			active = append(active, *s.tools[n])
		}
	}
	sort.Slice(deferred, func(i, j int) bool { return deferred[i].Name < deferred[j].Name })
	return s.version, active, deferred
}

// SetTokens records counted token costs (by tool name), so each tool is
// counted once a process. The tool lists do not change: no new version.
func (s *Set) SetTokens(counts map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, n := range counts {
		if t := s.tools[name]; t != nil && t.Tokens == 0 {
			t.Tokens = n
		}
	}
}

// Active returns the active tools in registration order.
func (s *Set) Active() []Tool { return s.list(false) }

// Deferred returns the deferred tools (the catalog), sorted by name so the
// rendered array does not depend on the order servers answered in.
func (s *Set) Deferred() []Tool {
	ts := s.list(true)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	return ts
}

// All returns every tool in registration order.
func (s *Set) All() []Tool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Tool, 0, len(s.order))
	for _, n := range s.order {
		out = append(out, *s.tools[n])
	}
	return out
}

func (s *Set) list(deferred bool) []Tool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	// Counted first: a Tool is large, and growing the slice by doubling
	// allocated twice the list at thousands of tools.
	n := 0
	for _, name := range s.order {
		if s.deferred[name] == deferred {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Tool, 0, n)
	for _, name := range s.order {
		if s.deferred[name] == deferred {
			out = append(out, *s.tools[name])
		}
	}
	return out
}
