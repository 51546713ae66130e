package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/store"
)

// fixture is an isolated run: its own home, working directory, database
// and config, the Anthropic fake as the provider and, when asked, a real
// MCP server over streamable HTTP (server "tt": weather, events, a prompt
// and a resource).
type fixture struct {
	fake  *anthropictest.Server
	flags Flags
	env   map[string]string
}

func newFixture(t *testing.T, withMCP bool) *fixture {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	f := &fixture{fake: anthropictest.NewServer(t), env: map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}}
	f.flags = Flags{Workdir: t.TempDir(), DBPath: filepath.Join(home, "agent.db"), NoLearn: true}
	f.flags.BaseURL = f.fake.URL
	if withMCP {
		srv := httptest.NewServer(server.NewStreamableHTTPServer(testMCPServer()))
		t.Cleanup(srv.Close)
		cfg := filepath.Join(home, "mcp.json")
		writeFile(t, cfg, `{"mcpServers": {"tt": {"type": "http", "url": "`+srv.URL+`/mcp"}}}`)
		f.flags.MCPConfig = cfg
	}
	return f
}

func testMCPServer() *server.MCPServer {
	s := server.NewMCPServer("testtools", "1.0.0", server.WithToolCapabilities(true),
		server.WithPromptCapabilities(true), server.WithResourceCapabilities(true, true))
	s.AddTool(mcpgo.NewTool("get_weather", mcpgo.WithDescription("Get the current weather forecast and temperature for a city"),
		mcpgo.WithString("city", mcpgo.Required(), mcpgo.Description("City name"))),
		func(_ context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("sunny in " + r.GetString("city", "?")), nil
		})
	s.AddTool(mcpgo.NewTool("list_events", mcpgo.WithDescription("List calendar events for a day"),
		mcpgo.WithString("date", mcpgo.Required())),
		func(_ context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("no events on " + r.GetString("date", "?")), nil
		})
	s.AddPrompt(mcpgo.NewPrompt("review", mcpgo.WithPromptDescription("Review a file"),
		mcpgo.WithArgument("file", mcpgo.RequiredArgument())),
		func(_ context.Context, r mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return mcpgo.NewGetPromptResult("review", []mcpgo.PromptMessage{
				mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent("Review "+r.Params.Arguments["file"]+" carefully.")),
			}), nil
		})
	s.AddResource(mcpgo.NewResource("file:///notes.txt", "notes", mcpgo.WithMIMEType("text/plain")),
		func(_ context.Context, r mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: r.Params.URI, MIMEType: "text/plain", Text: "remember the milk"}}, nil
		})
	return s
}

func (f *fixture) getenv(k string) string { return f.env[k] }

// open loads the settings from the fixture's flags, as cmd does, and opens
// the App, closed with the test.
func (f *fixture) open(t *testing.T, change func(*Flags)) *App {
	t.Helper()
	fl := f.flags
	if change != nil {
		change(&fl)
	}
	s, err := Load(fl, f.getenv)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	a, err := Open(t.Context(), s, Options{Getenv: f.getenv, Version: "test", Title: "first"})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(a.Close)
	return a
}

// Print mode in its three formats over a real MCP server whose tools are
// deferred: the model searches, calls the tool it found and answers.
func TestPrintFormats(t *testing.T) {
	for _, tt := range []struct {
		format string
		check  func(t *testing.T, stdout string)
	}{
		{"text", func(t *testing.T, out string) {
			if out != "Looking.\n\nSunny in Berlin.\n" {
				t.Errorf("text output %q", out)
			}
		}},
		{"json", func(t *testing.T, out string) {
			var r TurnResult
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if r.IsError || r.Result != "Sunny in Berlin." || r.SessionID == "" || r.Provider != "anthropic" || r.NumRequests != 2 {
				t.Errorf("result %+v", r)
			}
			if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "tt__get_weather" || r.ToolCalls[0].IsError {
				t.Errorf("tool calls %+v", r.ToolCalls)
			}
			if len(r.Searches) != 1 || r.Usage.InputTokens == 0 || r.Usage.OutputTokens == 0 {
				t.Errorf("searches %+v usage %+v", r.Searches, r.Usage)
			}
		}},
		{"stream-json", func(t *testing.T, out string) {
			var types []string
			sc := bufio.NewScanner(strings.NewReader(out))
			for sc.Scan() {
				var ev struct{ Type string }
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
					t.Fatalf("line %q: %v", sc.Text(), err)
				}
				types = append(types, ev.Type)
			}
			if len(types) < 3 || types[0] != "init" || types[len(types)-1] != "result" || !strings.Contains(strings.Join(types, " "), "tool_call_finished") {
				t.Errorf("event types %v", types)
			}
		}},
	} {
		t.Run(tt.format, func(t *testing.T) {
			f := newFixture(t, true)
			f.fake.Script = anthropictest.NewScript(
				anthropictest.Turn{Text: "Looking.", Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Berlin"}},
				anthropictest.Turn{Text: "Sunny in Berlin."},
			)
			a := f.open(t, func(fl *Flags) { fl.Defer = "true" })
			var out, errb bytes.Buffer
			if err := a.Print(t.Context(), "weather in Berlin?", PrintOptions{Format: tt.format, Stdout: &out, Stderr: &errb}); err != nil {
				t.Fatalf("print: %v (%s)", err, errb.String())
			}
			if !f.fake.Script.Done() {
				t.Errorf("the model's turns were not all used: %d requests", len(f.fake.Requests()))
			}
			tt.check(t, out.String())
		})
	}
}

// A call that needs approval is denied without --yes (saying so) and runs
// with it.
func TestPrintApproval(t *testing.T) {
	for _, yes := range []bool{false, true} {
		f := newFixture(t, true)
		f.fake.Script = anthropictest.NewScript(
			anthropictest.Turn{Call: "tt__list_events", Input: map[string]any{"date": "2026-01-02"}},
			anthropictest.Turn{Text: "Done."},
		)
		a := f.open(t, func(fl *Flags) { fl.RequireApproval = []string{"tt__list_events"} })
		var out, errb bytes.Buffer
		if err := a.Print(t.Context(), "events?", PrintOptions{Format: "json", Yes: yes, Stdout: &out, Stderr: &errb}); err != nil {
			t.Fatalf("yes=%v: %v", yes, err)
		}
		var r TurnResult
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		denied := strings.Contains(errb.String(), "denied tt__list_events")
		if denied == yes || len(r.ToolCalls) != 1 || r.ToolCalls[0].IsError == yes {
			t.Errorf("yes=%v: stderr %q calls %+v", yes, errb.String(), r.ToolCalls)
		}
	}
}

// A session comes back with its history and model; /model switches within
// the family and refuses another vendor's model; /new starts an empty
// session and Leave drops it while keeping the one with messages.
func TestResumeSwitchAndNew(t *testing.T) {
	f := newFixture(t, false)
	f.fake.Script = anthropictest.NewScript(anthropictest.Turn{Text: "Hello."}, anthropictest.Turn{Text: "Again."})
	a := f.open(t, func(fl *Flags) { fl.Model = "claude-haiku-4-5" })
	var out bytes.Buffer
	if err := a.Print(t.Context(), "hi", PrintOptions{Format: "text", Stdout: &out, Stderr: &out}); err != nil {
		t.Fatal(err)
	}
	id := a.Session().ID()
	a.Close()

	b := f.open(t, func(fl *Flags) { fl.Resume = id[:8] })
	if !b.Resumed() || b.Session().ID() != id || len(b.Session().Messages()) != 2 {
		t.Fatalf("resumed %v %s with %d messages", b.Resumed(), b.Session().ID(), len(b.Session().Messages()))
	}
	if _, m := b.Session().Target(); m != "claude-haiku-4-5" || b.Meta().Title != "first" {
		t.Errorf("resumed model %q title %q", m, b.Meta().Title)
	}
	for _, c := range []struct {
		model, errHas string
	}{
		{"claude-sonnet-4-5", ""},
		{"gpt-4o", "openai:gpt-4o"},
		{" ", "name a model"},
	} {
		err := b.SetModel(c.model)
		if (c.errHas == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.errHas)) {
			t.Errorf("SetModel(%q) = %v, want %q", c.model, err, c.errHas)
		}
	}
	if _, m := b.Session().Target(); m != "claude-sonnet-4-5" || b.Meta().Model != "claude-sonnet-4-5" {
		t.Errorf("after /model: session %s, stored %s", m, b.Meta().Model)
	}
	if err := b.Print(t.Context(), "again", PrintOptions{Format: "text", Stdout: &out, Stderr: &out}); err != nil {
		t.Fatal(err)
	}
	reqs := f.fake.Requests()
	if last := reqs[len(reqs)-1]; last.Model() != "claude-sonnet-4-5" || len(last.Messages()) != 3 || !last.Stream() {
		t.Errorf("last request: model %s, %d messages, stream %v", last.Model(), len(last.Messages()), last.Stream())
	}
	// The session's spend counts the requests before the resume too.
	if sp := b.Spend(); sp.Requests != 2 || sp.Last.OutputTokens == 0 || sp.Usage.OutputTokens <= sp.Last.OutputTokens {
		t.Errorf("spend after resume: %+v", sp)
	}
	if err := b.New(t.Context()); err != nil {
		t.Fatal(err)
	}
	if b.Session().ID() == id || len(b.Session().Messages()) != 0 {
		t.Errorf("new session %s with %d messages", b.Session().ID(), len(b.Session().Messages()))
	}
	// The new session has no message yet: the picker does not list it.
	list, err := b.Sessions(t.Context())
	if err != nil || len(list) != 1 || list[0].ID != id {
		t.Fatalf("sessions %v %v", list, err)
	}
	if all, err := b.db.List(t.Context(), store.ListOptions{Empty: true}); err != nil || len(all) != 2 {
		t.Fatalf("stored sessions %v %v", all, err)
	}
	if got := b.Leave(); got != "" {
		t.Errorf("Leave kept the empty session %s", got)
	}
	if all, _ := b.db.List(t.Context(), store.ListOptions{Empty: true}); len(all) != 1 || all[0].ID != id {
		t.Errorf("after Leave: %+v", all)
	}
	hist, err := b.Resume(t.Context(), id)
	if err != nil || len(hist) != 4 || b.Session().ID() != id {
		t.Errorf("Resume: %d messages, %v", len(hist), err)
	}
	if _, err := b.Resume(t.Context(), "nope"); err == nil || ExitCode(err) != 2 {
		t.Errorf("Resume of a missing ID: %v (exit %d)", err, ExitCode(err))
	}
}

// --no-stream sends non-streaming requests; a provider that refuses the
// key is an auth error with the hint naming the variable.
func TestNoStreamAndAuthError(t *testing.T) {
	f := newFixture(t, false)
	f.fake.Script = anthropictest.NewScript(anthropictest.Turn{Text: "Plain."})
	a := f.open(t, func(fl *Flags) { fl.NoStream = true })
	var out, errb bytes.Buffer
	if err := a.Print(t.Context(), "hi", PrintOptions{Format: "text", Stdout: &out, Stderr: &errb}); err != nil || out.String() != "Plain.\n" {
		t.Fatalf("no-stream: %q %v", out.String(), err)
	}
	if r := f.fake.Requests(); len(r) != 1 || r[0].Stream() {
		t.Errorf("the request streamed")
	}

	f.env["ANTHROPIC_API_KEY"] = "wrong"
	b := f.open(t, nil)
	out.Reset()
	err := b.Print(t.Context(), "hi", PrintOptions{Format: "json", Stdout: &out, Stderr: &errb})
	if agent.KindOf(err) != agent.ErrAuth || ExitCode(err) == 0 || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("wrong key: %v (kind %v, exit %d)", err, agent.KindOf(err), ExitCode(err))
	}
	var r TurnResult
	if json.Unmarshal(out.Bytes(), &r) != nil || !r.IsError || r.SessionID != "" {
		t.Errorf("the failed run's result %+v keeps a session", r)
	}
	if list, _ := b.Sessions(t.Context()); len(list) != 1 {
		t.Errorf("the failed run left a session: %d sessions", len(list))
	}
}

// The MCP surface the TUI uses: status, prompts (expanded with their
// arguments), resources, and disable/enable between turns.
func TestMCPSurface(t *testing.T) {
	f := newFixture(t, true)
	a := f.open(t, func(fl *Flags) { fl.Defer = "true" })
	a.SyncTools()
	st := a.MCPStatus()
	if len(st) != 1 || st[0].Name != "tt" || st[0].Tools != 2 {
		t.Fatalf("status %+v", st)
	}
	if ps := a.MCPPrompts(); len(ps) != 1 || ps[0].Name != "review" {
		t.Errorf("prompts %+v", ps)
	}
	got, err := a.ExpandPrompt(t.Context(), "tt", "review", "file=main.go")
	if err != nil || !strings.Contains(got, "Review main.go carefully.") {
		t.Errorf("expand: %q %v", got, err)
	}
	if _, err := a.ExpandPrompt(t.Context(), "tt", "review", ""); err == nil {
		t.Error("a missing required argument was accepted")
	}
	if _, err := a.ExpandPrompt(t.Context(), "tt", "nope", ""); err == nil || !strings.Contains(err.Error(), "no prompt") {
		t.Errorf("unknown prompt: %v", err)
	}
	if rs := a.MCPResources(); len(rs) != 1 || rs[0].URI != "file:///notes.txt" {
		t.Errorf("resources %+v", rs)
	}
	if text, err := a.ReadResource(t.Context(), "tt", "file:///notes.txt"); err != nil || !strings.Contains(text, "remember the milk") {
		t.Errorf("read resource: %q %v", text, err)
	}
	if hits, err := a.SearchTools("weather", 5); err != nil || len(hits) == 0 || hits[0].Name != "tt__get_weather" {
		t.Errorf("search: %+v %v", hits, err)
	}
	a.NewNotices()
	// Each action's reply is its one message: what the server said
	// meanwhile is in it, not said again as a notice.
	for _, step := range []struct{ action, reply string }{
		{"disable", "MCP server tt disabled (2 tools leave)"},
		{"disable", "MCP server tt: disabled, 2 tools"},
		{"enable", "MCP server tt enabled (2 tools join)"},
		{"enable", "MCP server tt: running, 2 tools"},
		{"reconnect", "MCP server tt: running, 2 tools"},
	} {
		if got, err := a.MCPControl(t.Context(), step.action, "tt"); err != nil || got != step.reply {
			t.Errorf("/mcp %s tt: %q, %v; want %q", step.action, got, err, step.reply)
		}
		if n := a.NewNotices(); len(n) != 0 {
			t.Errorf("/mcp %s tt said besides its reply: %v", step.action, n)
		}
		a.SyncTools()
		if n, want := serverTools(a, "tt"), map[bool]int{true: 0, false: 2}[step.action == "disable"]; n != want {
			t.Errorf("%d tools after %s, want %d", n, step.action, want)
		}
	}
	if _, err := a.MCPControl(t.Context(), "frobnicate", "tt"); err == nil {
		t.Error("an unknown action was accepted")
	}
}

func serverTools(a *App, server string) int {
	n := 0
	for _, t := range a.Session().Tools().All() {
		if t.Server == server {
			n++
		}
	}
	return n
}

// A provider that is gone (the server closed) ends the turn with an error
// that says where it tried; the run keeps no session behind.
func TestProviderGone(t *testing.T) {
	f := newFixture(t, false)
	a := f.open(t, nil)
	f.fake.Close()
	var out, errb bytes.Buffer
	err := a.Print(t.Context(), "hi", PrintOptions{Format: "json", Stdout: &out, Stderr: &errb})
	if err == nil || ExitCode(err) != 1 || !strings.Contains(err.Error(), strings.TrimPrefix(f.fake.URL, "http://")) {
		t.Fatalf("provider gone: %v (exit %d)", err, ExitCode(err))
	}
	var r TurnResult
	if json.Unmarshal(out.Bytes(), &r) != nil || !r.IsError || r.SessionID != "" || r.Error == "" {
		t.Errorf("result %+v", r)
	}
	if list, _ := a.Sessions(t.Context()); len(list) != 0 {
		t.Errorf("the failed run left %d sessions", len(list))
	}
}

// In print mode /SERVER:PROMPT ARGS runs the server's prompt, as in the
// TUI (and as -p expands a custom command); a missing argument is a usage
// error naming it, and a line that names no prompt goes as typed.
func TestPrintExpandsMCPPrompt(t *testing.T) {
	for _, tt := range []struct {
		prompt, sent, err string
	}{
		{prompt: "/tt:review main.go", sent: "Review main.go carefully."},
		{prompt: "/tt:review file=\"a b.go\"", sent: "Review a b.go carefully."},
		{prompt: "/tt:review", err: "prompt review needs file"},
		{prompt: "/tt:nope x", sent: "/tt:nope x"},
	} {
		t.Run(tt.prompt, func(t *testing.T) {
			f := newFixture(t, true)
			f.fake.Script = anthropictest.NewScript(anthropictest.Turn{Text: "Done."})
			a := f.open(t, nil)
			var out, errb bytes.Buffer
			err := a.Print(t.Context(), tt.prompt, PrintOptions{Format: "json", Stdout: &out, Stderr: &errb})
			if tt.err != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("print: %v, want a usage error saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("print: %v (%s)", err, errb.String())
			}
			reqs := f.fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			msgs := reqs[0].Messages()
			if last := string(msgs[len(msgs)-1]); !strings.Contains(last, tt.sent) {
				t.Errorf("the model was sent %s, want %q", last, tt.sent)
			}
		})
	}
}

// --demo with --resume (or --continue) of a session another provider made
// is refused, saying how to resume it: the demo's scripted model would have
// answered in the real conversation, and the session, stored as the
// demo's, would have resumed in the demo from then on. A demo session
// still resumes in the demo, and /resume in the demo refuses the same.
func TestDemoRefusesAnotherProvidersSession(t *testing.T) {
	f := newFixture(t, false)
	f.fake.Script = anthropictest.NewScript(anthropictest.Turn{Text: "Hello."})
	a := f.open(t, nil)
	var out, stderr bytes.Buffer
	if err := a.Print(t.Context(), "hi", PrintOptions{Format: "text", Stdout: &out, Stderr: &stderr}); err != nil {
		t.Fatalf("print: %v (%s)", err, stderr.String())
	}
	id := a.Session().ID()
	a.Close()

	for _, change := range []func(*Flags){
		func(fl *Flags) { fl.Demo, fl.Resume = true, id },
		func(fl *Flags) { fl.Demo, fl.Continue = true, true },
	} {
		fl := f.flags
		change(&fl)
		s, err := Load(fl, f.getenv)
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		d, err := Open(t.Context(), s, Options{Getenv: f.getenv, Version: "test"})
		if err == nil {
			d.Close()
			t.Fatalf("--demo resumed %s, a session of anthropic", id)
		}
		var ue *UsageError
		want := "session " + id + " was made with anthropic (claude-"
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "agent --resume "+id) {
			t.Errorf("error %v (usage %v), want a usage error containing %q and the command", err, ue != nil, want)
		}
	}
	db, err := store.Open(t.Context(), f.flags.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ss, err := db.OpenSession(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if p := ss.Meta().Provider; p != "anthropic" {
		t.Errorf("the session's provider is now %q", p)
	}
	_ = ss.Close()

	// In the demo, /resume of that session is refused; a demo session
	// resumes in the demo without --demo.
	demo := f.open(t, func(fl *Flags) { fl.Demo = true })
	if _, err := demo.Resume(t.Context(), id); err == nil || !strings.Contains(err.Error(), "agent --resume "+id) {
		t.Errorf("/resume in the demo: %v", err)
	}
	// Nor does its /sessions list it: the demo lists its own sessions only.
	listed := func(a *App) []string {
		t.Helper()
		rows, err := a.Sessions(t.Context())
		if err != nil {
			t.Fatalf("sessions: %v", err)
		}
		var ids []string
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
		return ids
	}
	if ids := listed(demo); slices.Contains(ids, id) {
		t.Errorf("the demo's /sessions lists %v, anthropic's session %s among them", ids, id)
	}
	demoID := demo.Session().ID()
	var dout bytes.Buffer
	if err := demo.Print(t.Context(), "hi", PrintOptions{Format: "text", Stdout: &dout, Stderr: &stderr}); err != nil {
		t.Fatalf("demo print: %v", err)
	}
	demo.Close()
	demo2 := f.open(t, func(fl *Flags) { fl.Demo = true })
	if ids := listed(demo2); !slices.Equal(ids, []string{demoID}) {
		t.Errorf("the demo's /sessions lists %v, want its own %s alone", ids, demoID)
	}
	demo2.Close()
	back := f.open(t, func(fl *Flags) { fl.Resume = demoID })
	if !back.Settings().Demo {
		t.Errorf("a demo session resumed outside the demo")
	}
}

// /mcp reconnect (and enable) restarts a server with the config the agent
// read at start; when the config files now say something else, the reply
// says so, and how to use the new one. A fixed command that was not
// used, with nothing saying why, read as the fix not working.
func TestReconnectSaysTheConfigChanged(t *testing.T) {
	const note = "the config of MCP server tt changed since the agent started"
	for _, tc := range []struct {
		name   string
		edit   func(cfg string) string
		action string
		noted  bool
	}{
		{"unchanged", func(cfg string) string { return cfg }, "reconnect", false},
		{"a header added", func(cfg string) string {
			return strings.Replace(cfg, `"type": "http"`, `"type": "http", "headers": {"X-Team": "a"}`, 1)
		}, "reconnect", true},
		{"enabled after an edit", func(cfg string) string {
			return strings.Replace(cfg, `"type": "http"`, `"type": "http", "headers": {"X-Team": "a"}`, 1)
		}, "enable", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, true)
			a := f.open(t, nil)
			b, err := os.ReadFile(f.flags.MCPConfig)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, f.flags.MCPConfig, tc.edit(string(b)))
			got, err := a.MCPControl(t.Context(), tc.action, "tt")
			if err != nil {
				t.Fatalf("/mcp %s tt: %v", tc.action, err)
			}
			if strings.Contains(got, note) != tc.noted {
				t.Errorf("/mcp %s tt said %q; the config's change noted: want %v", tc.action, got, tc.noted)
			}
			if tc.noted && !strings.Contains(got, "agent --continue") {
				t.Errorf("the note does not say how to use the new config: %q", got)
			}
		})
	}
}
