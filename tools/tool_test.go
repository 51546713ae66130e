package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func tool(name, server string, deferred bool) Tool {
	return Tool{Name: name, Server: server, Deferred: deferred, Description: strings.Repeat("word ", 50),
		Exec: func(context.Context, json.RawMessage) (Result, error) { return Result{Text: name}, nil }}
}

func TestSetDeferralOverrides(t *testing.T) {
	s := NewSet()
	if err := s.Add(nil, tool("a", "", false), tool("b", "", true)); err != nil {
		t.Fatal(err)
	}
	if err := s.Add([]Option{Defer(false)}, tool("c", "", true)); err != nil {
		t.Fatal(err)
	}
	if err := s.Add([]Option{Defer(true)}, tool("d", "", false)); err != nil {
		t.Fatal(err)
	}
	names := func(ts []Tool) string {
		var o []string
		for _, t := range ts {
			o = append(o, t.Name)
		}
		return strings.Join(o, ",")
	}
	if got := names(s.Active()); got != "a,c" {
		t.Errorf("active = %s", got)
	}
	if got := names(s.Deferred()); got != "b,d" {
		t.Errorf("deferred = %s", got)
	}
	// A deferred tool is looked up and runs exactly like an active one.
	tl, ok := s.Lookup("d")
	if !ok {
		t.Fatal("deferred tool not found")
	}
	if r, _ := tl.Exec(t.Context(), nil); r.Text != "d" {
		t.Errorf("exec = %q", r.Text)
	}
	if err := s.Add(nil, tool("a", "", false)); err == nil {
		t.Error("duplicate name accepted")
	}
}

func TestReplaceServerKeepsDeferralOfKeptTools(t *testing.T) {
	s := NewSet()
	_ = s.Add([]Option{Defer(true)}, tool("x__one", "x", false), tool("x__two", "x", false))
	_ = s.Add(nil, tool("y__one", "y", false))
	v := s.Version()
	if err := s.ReplaceServer("x", []Option{Defer(false)}, tool("x__two", "x", false), tool("x__three", "x", false)); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Lookup("x__one"); ok {
		t.Error("removed tool still present")
	}
	if !s.IsDeferred("x__two") || s.IsDeferred("x__three") || s.IsDeferred("y__one") {
		t.Error("deferral not kept")
	}
	if s.Version() == v {
		t.Error("version did not change")
	}
}

func TestAutoDeferDefersBiggestServersFirst(t *testing.T) {
	s := NewSet()
	_ = s.Add(nil, tool("builtin", "", false))
	for _, n := range []string{"a", "b", "c", "d"} {
		_ = s.Add(nil, tool("big__"+n, "big", false))
	}
	_ = s.Add(nil, tool("small__a", "small", false), tool("small__keep", "small", false))
	budget := 3 * tool("z", "", false).Cost()
	got := s.AutoDefer(budget, map[string]bool{"small__keep": true})
	if len(got) == 0 || got[0] != "big" {
		t.Fatalf("deferred servers = %v", got)
	}
	if s.ActiveCost() > budget {
		t.Errorf("active cost %d over budget %d", s.ActiveCost(), budget)
	}
	if s.IsDeferred("builtin") || s.IsDeferred("small__keep") {
		t.Error("kept tools deferred")
	}
	if s.AutoDefer(1<<30, nil) != nil {
		t.Error("nothing should move under a large budget")
	}
}

func TestSetPolicyFiltersAndDefers(t *testing.T) {
	s := NewSet()
	s.SetPolicy(func(t Tool) bool { return t.Server != "blocked" }, func(t Tool) bool { return t.Name == "gh__create" })
	if err := s.Add(nil, tool("gh__create", "gh", false), tool("gh__list", "gh", false), tool("x__y", "blocked", false)); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Lookup("x__y"); ok {
		t.Error("a tool the allow list rejects must not be registered")
	}
	if !s.IsDeferred("gh__create") || s.IsDeferred("gh__list") {
		t.Errorf("deferred: create %v list %v, want true false", s.IsDeferred("gh__create"), s.IsDeferred("gh__list"))
	}
	if err := s.ReplaceServer("blocked", nil, tool("x__z", "blocked", false)); err != nil {
		t.Fatal(err)
	}
	if len(s.All()) != 2 {
		t.Errorf("after a refresh of a blocked server: %d tools, want 2", len(s.All()))
	}
}
