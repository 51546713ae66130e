package agent_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools"
)

// limited is scripted with a tool limit, counted as a Chat Completions
// adapter does: the active tools plus tool_search and tool_call when it
// searches on the client.
type limited struct {
	scripted
	max int
}

func (l *limited) ToolLimit(req *agent.Request) (n, max int) {
	n = len(req.Tools)
	if agent.ResolveSearch(l, req) == agent.SearchClient {
		n += 2
	}
	return n, l.max
}

// catalog is a set with built-in tools and servers of the given sizes;
// alwaysLoad names tools the config keeps active.
func catalog(t *testing.T, builtins int, servers map[string]int, alwaysLoad ...string) *tools.Set {
	t.Helper()
	set := tools.NewSet()
	var ts []tools.Tool
	for i := range builtins {
		ts = append(ts, echoTool(fmt.Sprintf("builtin_%d", i), false, nil))
	}
	for srv, n := range servers {
		for i := range n {
			tl := echoTool(fmt.Sprintf("%s__t%03d", srv, i), false, nil)
			tl.Server, tl.AlwaysLoad = srv, slices.Contains(alwaysLoad, tl.Name)
			ts = append(ts, tl)
		}
	}
	if err := set.Add(nil, ts...); err != nil {
		t.Fatal(err)
	}
	return set
}

func names(defs []agent.ToolDef) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}

func TestToolLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		max        int
		builtins   int
		servers    map[string]int
		alwaysLoad []string
		auto       bool
		search     agent.SearchMode
		// wantErr: the request is refused before it is sent, with this.
		wantErr string
		// wantActive is how many tools each request carries active, and
		// wantDeferred which servers' tools were deferred.
		wantActive   int
		wantDeferred []string
	}{
		{name: "under the limit: untouched", max: 128, builtins: 3, servers: map[string]int{"gh": 60, "fs": 14}, auto: true,
			wantActive: 77},
		{name: "no limit", max: 0, builtins: 3, servers: map[string]int{"big": 500}, wantActive: 503},
		{name: "auto defers the biggest server", max: 128, builtins: 3, servers: map[string]int{"bulk": 200, "gh": 60, "fs": 14}, auto: true,
			wantActive: 77, wantDeferred: []string{"bulk"}},
		{name: "auto defers servers until it fits", max: 128, builtins: 3, servers: map[string]int{"a": 100, "b": 90, "c": 60}, auto: true,
			wantActive: 63, wantDeferred: []string{"a", "b"}},
		{name: "alwaysLoad and built-ins stay", max: 10, builtins: 3, servers: map[string]int{"a": 20}, alwaysLoad: []string{"a__t001", "a__t002"}, auto: true,
			wantActive: 5, wantDeferred: []string{"a"}},
		{name: "not auto: refused", max: 128, builtins: 3, servers: map[string]int{"bulk": 200},
			wantErr: "scripted takes at most 128 tools in a request and this one would carry 203: defer tools with --defer auto"},
		{name: "search off: refused", max: 128, builtins: 3, servers: map[string]int{"bulk": 200}, auto: true, search: agent.SearchOff,
			wantErr: "scripted takes at most 128 tools in a request and this one would carry 203: --search off sends every tool"},
		{name: "cannot fit", max: 4, builtins: 3, servers: map[string]int{"a": 20}, alwaysLoad: []string{"a__t001", "a__t002"}, auto: true,
			wantErr: "scripted takes at most 4 tools in a request and this one would carry 7 even with every MCP server's tools deferred"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			set := catalog(t, tc.builtins, tc.servers, tc.alwaysLoad...)
			p := &limited{max: tc.max}
			p.turns = append(p.turns, answer(call("c1", "builtin_0", `{"x":1}`)), answer(agent.TextPart("done")))
			search := tc.search
			if search == "" {
				search = agent.SearchClient
			}
			s := agent.New(agent.Config{Provider: p, Model: "m", Tools: set, Search: search, Searcher: fixedSearcher{}, DeferToFit: tc.auto})
			plain := s.BuildRequest()
			evs, err := collect(t, s, "go")
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, agent.ErrTooManyTools) || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line with %q", err, tc.wantErr)
				}
				if len(p.reqs) != 0 {
					t.Errorf("%d requests sent, want none", len(p.reqs))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(p.reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(p.reqs))
			}
			first := p.reqs[0]
			for _, r := range p.reqs[1:] {
				// The same lists, under the same version, on every request.
				if r.ToolsVersion != first.ToolsVersion || !slices.Equal(names(r.Tools), names(first.Tools)) ||
					!slices.Equal(names(r.Deferred), names(first.Deferred)) || r.Directory != first.Directory {
					t.Errorf("a later request's tool lists differ from the first's")
				}
			}
			if n, max := p.ToolLimit(first); max > 0 && n > max {
				t.Errorf("%d tools sent, over the limit of %d", n, max)
			}
			if len(first.Tools) != tc.wantActive {
				t.Errorf("%d active tools, want %d", len(first.Tools), tc.wantActive)
			}
			deferredServers := map[string]bool{}
			for _, d := range first.Deferred {
				deferredServers[d.Server] = true
				if slices.Contains(tc.alwaysLoad, d.Name) || d.Server == "" {
					t.Errorf("%s deferred", d.Name)
				}
			}
			for _, srv := range tc.wantDeferred {
				if !deferredServers[srv] || !strings.Contains(first.Directory, "- "+srv+" (") {
					t.Errorf("server %s not deferred (or not in the directory %q)", srv, first.Directory)
				}
			}
			if len(deferredServers) != len(tc.wantDeferred) {
				t.Errorf("deferred servers %v, want %v", deferredServers, tc.wantDeferred)
			}
			var notices []string
			for _, e := range evs {
				if e.Type == agent.EventWarning && strings.Contains(e.Text, "--defer auto") {
					notices = append(notices, e.Text)
				}
			}
			if len(tc.wantDeferred) == 0 {
				// Nothing deferred: the request is the plain one.
				if first.ToolsVersion != plain.ToolsVersion || !slices.Equal(names(first.Tools), names(plain.Tools)) || len(first.Deferred) != 0 || len(notices) != 0 {
					t.Errorf("a request within the limit was changed (notices %q)", notices)
				}
				return
			}
			if len(notices) != 1 || !strings.Contains(notices[0], "scripted's limit of "+fmt.Sprint(tc.max)+" tools") {
				t.Errorf("notices %q, want one naming the deferred servers and the limit", notices)
			}
		})
	}
}

// TestToolLimitFollowsTheProvider: the limit is the current provider's,
// read per request: a session that moves to a provider without one sends
// every tool again, and back to the limited one defers again, with the
// same lists as before.
func TestToolLimitFollowsTheProvider(t *testing.T) {
	t.Parallel()
	set := catalog(t, 1, map[string]int{"bulk": 200, "gh": 10})
	chat := &limited{max: 128}
	open := &limited{max: 0}
	for _, p := range []*limited{chat, open} {
		p.turns = append(p.turns, answer(agent.TextPart("a")), answer(agent.TextPart("b")))
	}
	s := agent.New(agent.Config{Provider: chat, Model: "m", Tools: set, Search: agent.SearchClient, Searcher: fixedSearcher{}, DeferToFit: true})
	steps := []*limited{chat, open, chat}
	for i, p := range steps {
		if err := s.Override(func(tc *agent.TurnContext) { tc.Provider = p }); err != nil {
			t.Fatal(err)
		}
		if _, err := collect(t, s, fmt.Sprint("turn ", i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(chat.reqs) != 2 || len(open.reqs) != 1 {
		t.Fatalf("requests: %d limited, %d open", len(chat.reqs), len(open.reqs))
	}
	if len(open.reqs[0].Tools) != 211 || len(open.reqs[0].Deferred) != 0 {
		t.Errorf("the provider without a limit got %d active, %d deferred", len(open.reqs[0].Tools), len(open.reqs[0].Deferred))
	}
	a, b := chat.reqs[0], chat.reqs[1]
	if len(a.Tools) != 11 || a.ToolsVersion != b.ToolsVersion || !slices.Equal(names(a.Tools), names(b.Tools)) {
		t.Errorf("the limited provider's requests: %d active, versions %d and %d", len(a.Tools), a.ToolsVersion, b.ToolsVersion)
	}
}
