package cmd

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/app/tuiapp"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// openInteractive opens an App as the TUI does (servers start in the
// background) with the gated test server and no catalog cached.
func openInteractive(t *testing.T, cfg string, fake *anthropictest.Server, wait ...time.Duration) *app.App {
	t.Helper()
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	getenv := func(k string) string { return env[k] }
	f := app.Flags{MCPConfig: cfg, DBPath: filepath.Join(t.TempDir(), "agent.db")}
	f.Provider, f.BaseURL = "anthropic", fake.URL
	if len(wait) > 0 {
		f.MCPStartWait = config.Duration(wait[0])
	}
	s, err := app.Load(f, getenv)
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(context.Background(), s, app.Options{Getenv: getenv, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// #27: in the TUI, a server with no cached catalog holds the first request
// until it has listed its tools; the request then carries them.
func TestFirstRequestWaitsForUncachedServer(t *testing.T) {
	isolate(t)
	cfg, gate := gatedMCPConfig(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "hello"}))
	a := openInteractive(t, cfg, fake)

	events := a.Send(context.Background(), "what is the weather in Berlin?")
	ev := <-events
	if ev.Type != agent.EventCatalogWait || ev.Text != "tt" {
		t.Fatalf("first event %+v, want catalog_wait naming tt", ev)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("%d requests went out while the server was starting", n)
	}
	gate.Open()
	var warned []string
	for ev := range events {
		if ev.Type == agent.EventWarning {
			warned = append(warned, ev.Text)
		}
		if ev.Type == agent.EventError {
			t.Fatalf("turn failed: %v", ev.Err)
		}
	}
	if len(warned) > 0 {
		t.Errorf("warnings: %q", warned)
	}
	reqs := fake.Requests()
	if len(reqs) != 1 || !bytes.Contains(reqs[0].Tools(), []byte("tt__get_weather")) {
		t.Fatalf("the first request lacks the server's tools: %s", reqs[0].Tools())
	}
}

// In the TUI, a server the first turn waited for says it is up before
// that turn's answer, not after it: the notice was taken when the turn
// began, before the server came up, and said only at the next refresh.
func TestServerUpIsSaidBeforeTheFirstAnswer(t *testing.T) {
	isolate(t)
	cfg, gate := gatedMCPConfig(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "hello"}))
	b := tuiapp.New(openInteractive(t, cfg, fake))
	events := b.Send(context.Background(), "what is the weather in Berlin?")
	if ev := <-events; ev.Type != agent.EventCatalogWait {
		t.Fatalf("first event %+v, want catalog_wait", ev)
	}
	gate.Open()
	var order []string
	for ev := range events {
		switch ev.Type {
		case agent.EventWarning, agent.EventNotice:
			order = append(order, ev.Text)
		case agent.EventTextDelta:
			order = append(order, "answer: "+ev.Text)
		case agent.EventError:
			t.Fatalf("turn failed: %v", ev.Err)
		}
	}
	up := slices.IndexFunc(order, func(s string) bool { return strings.HasPrefix(s, "MCP server tt is up (") })
	answer := slices.IndexFunc(order, func(s string) bool { return strings.HasPrefix(s, "answer: ") })
	if up < 0 || answer < 0 || up > answer {
		t.Errorf("events %q: want \"MCP server tt is up\" before the answer", order)
	}
	if later := b.Refresh(); len(later) > 0 {
		t.Errorf("said again after the turn: %v", later)
	}
}

// #27: esc (SkipCatalogWait) sends the held request without the starting
// server, and says so.
func TestSkipCatalogWait(t *testing.T) {
	isolate(t)
	cfg, gate := gatedMCPConfig(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "hello"}))
	a := openInteractive(t, cfg, fake)
	t.Cleanup(gate.Open) // let the server process end

	events := a.Send(context.Background(), "hi")
	if ev := <-events; ev.Type != agent.EventCatalogWait {
		t.Fatalf("first event %+v, want catalog_wait", ev)
	}
	if !a.SkipCatalogWait() {
		t.Fatal("no wait to skip after catalog_wait")
	}
	var warned bool
	for ev := range events {
		if ev.Type == agent.EventWarning && bytes.Contains([]byte(ev.Text), []byte("sent without the tools of tt")) {
			warned = true
		}
	}
	if !warned {
		t.Error("no line said the request went without tt's tools")
	}
	if reqs := fake.Requests(); len(reqs) != 1 || bytes.Contains(reqs[0].Body, []byte("tt__get_weather")) {
		t.Fatalf("want one request without tt's tools, got %d", len(reqs))
	}
}

// #27: mcp_start_wait bounds the hold; past it the request goes without
// the server, and a line names it and the key.
func TestCatalogWaitBounded(t *testing.T) {
	isolate(t)
	cfg, gate := gatedMCPConfig(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "hello"}))
	a := openInteractive(t, cfg, fake, 300*time.Millisecond)
	t.Cleanup(gate.Open)
	var warned string
	for ev := range a.Send(context.Background(), "hi") {
		if ev.Type == agent.EventWarning {
			warned = ev.Text
		}
	}
	if !bytes.Contains([]byte(warned), []byte("tt still starting after 300ms")) || !bytes.Contains([]byte(warned), []byte("mcp_start_wait")) {
		t.Errorf("warning %q", warned)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("%d requests", n)
	}
}
