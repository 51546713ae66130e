package agent

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// Some APIs take a limited number of tools in one request (OpenAI's Chat
// Completions 128, Gemini 512 function declarations) and answer more with
// a 400. The limit is the adapter's to know and to count against, as it
// renders the request (its own search functions and provider tools
// count); the session asks before each request, since the provider and the
// model may change between requests (a /model switch, the fallback).
//
// With DeferToFit (--defer auto) a request over the limit defers whole
// servers' tools, those with the most tools first, until it fits: the
// deferred tools are found by search. Built-in tools and a server's
// alwaysLoad tools stay. The choice depends on the catalog and the limit
// alone, so every request of a conversation carries the same tools array.
// Without DeferToFit, or when deferring cannot make it fit, the request is
// not sent and the turn fails with ErrTooManyTools, one line naming the
// limit and what to do.

// ToolLimiter is a Provider whose API caps the tools of one request.
type ToolLimiter interface {
	// ToolLimit returns how many tool definitions req would carry as the
	// adapter renders it for req.Model (its search functions and provider
	// tools included), and the most the API takes (0: no limit).
	ToolLimit(req *Request) (n, max int)
}

// ErrTooManyTools is the kind of a request refused before it was sent: it
// would carry more tools than the provider takes.
var ErrTooManyTools = errors.New("too many tools for the provider")

// fittedDefs are the tool lists of requests to one limit: toolDefs with
// servers moved to the deferred list (fitTools).
type fittedDefs struct {
	base uint64 // the toolDefs version they were made from
	key  string // provider, API, model and limit
	defs toolDefs
	// moved are the servers deferred to fit; err is set when nothing fits.
	moved []string
	err   error
}

// fitTools checks req against p's tool limit and, with DeferToFit, moves
// whole servers to the deferred list until it fits. notice is set the first
// time a set of lists is made to fit (what was deferred, for the user).
func (s *Session) fitTools(p Provider, req *Request) (notice string, err error) {
	lim, ok := p.(ToolLimiter)
	if !ok {
		return "", nil
	}
	n, max := lim.ToolLimit(req)
	if max <= 0 || n <= max {
		return "", nil
	}
	tooMany := func(n int, what string) error {
		return WithKind(ErrTooManyTools, fmt.Errorf("%s takes at most %d tools in a request and this one would carry %d%s", p.Name(), max, n, what))
	}
	s.mu.Lock()
	d, f := s.defs, s.fitted
	auto := s.cfg.DeferToFit
	s.mu.Unlock()
	if !auto || req.Search == SearchOff || d.version != req.ToolsVersion {
		switch {
		case req.Search == SearchOff:
			return "", tooMany(n, ": --search off sends every tool; use --search native or client with --defer auto")
		case !auto:
			return "", tooMany(n, ": defer tools with --defer auto (or --defer, or \"defer\": true in a server's config), so search finds them")
		}
		return "", tooMany(n, "") // lists not made by this session: nothing to defer from
	}
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%d", p.Name(), p.API(), req.Model, max)
	made := f.base != d.version || f.key != key
	if made {
		f = fit(lim, req, d, key, max, tooMany)
		s.mu.Lock()
		s.fitted = f
		s.mu.Unlock()
	}
	if f.err != nil {
		return "", f.err
	}
	req.Tools, req.Deferred, req.ToolsVersion, req.Directory = f.defs.tools, f.defs.deferred, f.defs.version, f.defs.directory
	if made {
		notice = fmt.Sprintf("--defer auto: deferred the tools of %s to keep the request within %s's limit of %d tools; search finds them",
			strings.Join(f.moved, ", "), p.Name(), max)
	}
	return notice, nil
}

// fit makes d's lists fit max: servers, most active tools first (then by
// name), move to the deferred list until the adapter counts max or fewer.
func fit(lim ToolLimiter, req *Request, d toolDefs, key string, max int, tooMany func(int, string) error) fittedDefs {
	f := fittedDefs{base: d.version, key: key}
	count := map[string]int{}
	for _, t := range d.active {
		if movable(t) {
			count[t.Server]++
		}
	}
	servers := tools.MostFirst(count)
	moved := map[string]bool{}
	trial := *req
	n := 0
	for _, srv := range servers {
		moved[srv] = true
		f.moved = append(f.moved, srv)
		trial.Tools, trial.Deferred = splitDefs(d, moved)
		if n, _ = lim.ToolLimit(&trial); n <= max {
			break
		}
	}
	if n > max || len(servers) == 0 {
		if len(servers) == 0 {
			n, _ = lim.ToolLimit(req)
		}
		f.err = tooMany(n, " even with every MCP server's tools deferred but the built-in and alwaysLoad ones: drop some from alwaysLoad, or connect fewer servers")
		return f
	}
	var deferred []tools.Tool
	deferred = append(deferred, d.deferredTools...)
	for _, t := range d.active {
		if movable(t) && moved[t.Server] {
			deferred = append(deferred, t)
		}
	}
	f.defs = toolDefs{setVersion: d.setVersion, search: d.search, version: defsVersions.Add(1),
		tools: trial.Tools, deferred: trial.Deferred, directory: tools.Directory(deferred)}
	return f
}

// movable reports whether fitting may defer t: an MCP server's tool that is
// not alwaysLoad.
func movable(t tools.Tool) bool { return t.Server != "" && !t.AlwaysLoad }

// splitDefs is d's lists with the movable tools of the moved servers
// deferred after the ones already deferred.
func splitDefs(d toolDefs, moved map[string]bool) (active, deferred []ToolDef) {
	deferred = append(deferred, d.deferred...)
	for i, t := range d.active {
		if movable(t) && moved[t.Server] {
			deferred = append(deferred, d.tools[i])
		} else {
			active = append(active, d.tools[i])
		}
	}
	return active[:len(active):len(active)], deferred[:len(deferred):len(deferred)]
}
