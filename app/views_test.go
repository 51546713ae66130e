package app

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/store"
	mcptools "github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tools/search"
)

// evil is text from outside (a title, a server's error, a description)
// carrying escape sequences that must not reach a terminal.
const evil = "ok\x1b[2J\x1b]0;pwned\x07link"

func noEscapes(t *testing.T, what, s string) {
	t.Helper()
	if strings.ContainsAny(s, "\x1b\x07") {
		t.Errorf("%s: an escape sequence reaches the terminal: %q", what, s)
	}
}

func TestSessionAge(t *testing.T) {
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.Local)
	for _, tt := range []struct {
		ago  time.Duration
		want string
	}{
		{10 * time.Second, "just now"},
		{5 * time.Minute, "5m ago"},
		{3 * time.Hour, "3h ago"},
		{49 * time.Hour, "2d ago"},
		{8 * 24 * time.Hour, "2026-05-02"},
	} {
		if got := sessionAge(now, now.Add(-tt.ago)); got != tt.want {
			t.Errorf("%s ago: %q, want %q", tt.ago, got, tt.want)
		}
	}
}

// Columns are aligned in cells (a wide title), an empty title is named,
// long ones are cut, and a title's escapes are neutralised.
func TestWriteSessionTable(t *testing.T) {
	now := time.Now()
	list := []store.Summary{
		{ID: "aaaa1111", Updated: now, Title: "日本語のタイトル", Provider: "anthropic", Model: "claude-sonnet-4-5", Messages: 4, Searches: 1},
		{ID: "bbbb2222", Updated: now.Add(-2 * time.Hour), Title: "", Provider: "openai", Model: "gpt-5", Messages: 2},
		{ID: "cccc3333", Updated: now, Title: strings.Repeat("long ", 20) + evil, Provider: "gemini", Model: "gemini-2.5-pro"},
	}
	var b bytes.Buffer
	WriteSessionTable(&b, list, now, 0)
	out := b.String()
	noEscapes(t, "sessions", out)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID") {
		t.Fatalf("table:\n%s", out)
	}
	col := strings.Index(lines[0], "PROVIDER/MODEL")
	for _, l := range lines[1:] {
		// The provider column starts at the same cell on every line.
		if i := strings.Index(l, "/"); ansi.StringWidth(l[:i]) < ansi.StringWidth(lines[0][:col]) {
			t.Errorf("misaligned: %q", l)
		}
	}
	if !strings.Contains(lines[2], "(untitled)") || !strings.Contains(lines[2], "2h ago") || !strings.Contains(lines[3], "…") {
		t.Errorf("rows:\n%s", out)
	}
}

// On a terminal the list fits its width: the titles give way first, then
// the provider/model, and every row keeps its id and counts. At 80 columns
// rows ran to about 100, each wrapped into the next by the terminal.
// Piped (width 0) every field is as it was.
func TestSessionTableFitsTheTerminal(t *testing.T) {
	now := time.Now()
	list := []store.Summary{
		{ID: "aaaa1111", Updated: now, Title: "Please convert 250 EUR to USD and also tell me about the rate", Provider: "anthropic", Model: "claude-sonnet-4-5-20250929", Messages: 12, Searches: 3},
		{ID: "bbbb2222", Updated: now.Add(-2 * time.Hour), Title: "日本語のタイトルと長い説明文がここに続きます", Provider: "openrouter", Model: "anthropic/claude-sonnet-4.5", Messages: 2},
	}
	var whole bytes.Buffer
	WriteSessionTable(&whole, list, now, 0)
	if !strings.Contains(whole.String(), "claude-sonnet-4-5-20250929") || !strings.Contains(whole.String(), "and also tell me") {
		t.Fatalf("piped, a field was cut:\n%s", whole.String())
	}
	for _, width := range []int{100, 80, 60} {
		var b bytes.Buffer
		WriteSessionTable(&b, list, now, width)
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > width {
				t.Errorf("width %d: a line of %d cells: %q", width, w, l)
			}
		}
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[0], "SEARCHES") {
			t.Fatalf("width %d: table:\n%s", width, b.String())
		}
		for i, id := range []string{"aaaa1111", "bbbb2222"} {
			f := strings.Fields(lines[i+1])
			if f[0] != id || f[len(f)-2] != []string{"12", "2"}[i] || f[len(f)-1] != []string{"3", "0"}[i] {
				t.Errorf("width %d: row %q lost its id or counts", width, lines[i+1])
			}
		}
		if width == 100 && (!strings.Contains(lines[1], "Please convert") || !strings.Contains(lines[1], "…") || !strings.Contains(lines[2], "openrouter/anthropic/claude-sonnet-4.5")) {
			t.Errorf("at 100 columns the title should give way, not the model:\n%s", b.String())
		}
	}
}

func TestWriteTranscript(t *testing.T) {
	e := &store.Export{
		Session: store.SessionMeta{ID: "s1", Provider: "anthropic", Model: "m", Workdir: "/w", Title: "Title " + evil,
			Settings: store.Settings{Search: "native", Defer: "auto", MCPServers: []string{"gh"}, Agent: "reviewer"}},
		Requests:    []store.Request{{InputTokens: 10, OutputTokens: 5, CacheRead: 3}},
		Discoveries: []store.Discovery{{Tool: "gh__pr"}, {Tool: "gh__pr"}, {Tool: "gh__issue"}},
		Compactions: []agent.Compaction{{Seq: 1, Boundary: 1, Before: 900, After: 100, Summary: "we talked"}},
		Messages: []store.StoredMessage{
			{Message: agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hello")}}},
			{Message: agent.Message{Role: agent.RoleAssistant, Interrupted: true, Parts: []agent.Part{
				{Type: agent.PartToolCall, ToolCall: &agent.ToolCall{Name: "gh__pr", Input: json.RawMessage(`{"n": 1}`)}},
				{Type: agent.PartToolResult, ToolResult: &agent.ToolResult{Name: "gh__pr", Text: "failed\n" + evil, IsError: true}},
				{Type: agent.PartSearchResult, SearchResult: &agent.SearchResult{Tools: []string{"gh__pr"}}},
				{Type: agent.PartSearchResult, SearchResult: &agent.SearchResult{Error: "bad regex"}},
			}}},
			{Partial: true, Message: agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("cut")}}},
		},
	}
	var b bytes.Buffer
	WriteTranscript(&b, e)
	out := b.String()
	noEscapes(t, "transcript", out)
	for _, want := range []string{
		"Session s1 · anthropic/m · /w", "1 requests · tokens in 10 (cache read 3, write 0), out 5",
		"Search native · defer auto · MCP gh", "Agent profile reviewer", "Compactions: 1 (requests send a summary of the first 1 messages: about 900 → 100 tokens)",
		"Discovered tools: gh__pr, gh__issue\n", "── user ──\nhello\n\n── compacted (1): the messages above are sent as this summary ──\nwe talked",
		`  → gh__pr {"n": 1}`, "  ✗ gh__pr: failed ok", "  ⌕ found: gh__pr", "  ⌕ search failed: bad regex", "  [interrupted]", "cut\n  [still streaming",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteMCPListAndHits(t *testing.T) {
	entries := []MCPEntry{
		{Status: mcptools.Status{Name: "gh", Transport: "stdio", State: mcptools.StateRunning, Tools: 2, Deferred: 1, Source: "user", Target: "gh-mcp"},
			ToolNames: []MCPTool{{Name: "gh__pr", ServerTool: "pr", Deferred: true}, {Name: "gh__issue", ServerTool: "issue"}}, SignIn: "off"},
		{Status: mcptools.Status{Name: "bad", Transport: "http", State: mcptools.StateFailed, Tools: 9, Error: "exit 1: " + evil + "\nsecond line"}},
		{Status: mcptools.Status{Name: "cc", Transport: "http", State: "idle"}, SignIn: string(oauth.StateOnUse), Grant: config.GrantClientCredentials},
		{Status: mcptools.Status{Name: "xa", Transport: "http", State: "idle"}, SignIn: string(oauth.StateOnUse), Grant: config.GrantCrossApp},
	}
	var b bytes.Buffer
	if err := WriteMCPList(&b, entries, true, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	noEscapes(t, "mcp list", out)
	for _, want := range []string{"gh    stdio", "running", "gh-mcp", "exit 1: ok", "gh: 2 tools, 1 deferred", "gh__pr     deferred  pr", "gh__issue  active",
		"signs in on use (client credentials)", "signs in on use (cross-app access)"} {
		if !strings.Contains(out, want) {
			t.Errorf("mcp list lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "second line") || strings.Contains(out, " 9 ") {
		t.Errorf("a failed server's count or second error line shown:\n%s", out)
	}

	b.Reset()
	if err := WriteHits(&b, nil, "pdf", 12, 0); err != nil || b.String() != "no tools match \"pdf\" among 12 tools\n" {
		t.Errorf("no hits: %q %v", b.String(), err)
	}
	b.Reset()
	if err := WriteHits(&b, nil, "pdf", 1, 0); err != nil || b.String() != "no tools match \"pdf\" among 1 tool\n" {
		t.Errorf("no hits among one: %q %v", b.String(), err)
	}
	b.Reset()
	hits := []search.Hit{{Name: "convert" + evil, Description: "Converts files\nmore", Score: 1.5}, {Name: "b", Server: "s", Score: 0.25}}
	if err := WriteHits(&b, hits, "x", 2, 0); err != nil {
		t.Fatal(err)
	}
	noEscapes(t, "hits", b.String())
	if !strings.Contains(b.String(), "1.50   Converts files\n") || !strings.Contains(b.String(), "2  b") {
		t.Errorf("hits:\n%s", b.String())
	}
}

func TestModelRows(t *testing.T) {
	for _, tt := range []struct {
		provider, model string
		ids             []string
		errHas          string
		want            []string
	}{
		{"anthropic", "", []string{"claude-sonnet-4-5"}, "", []string{"claude-sonnet-4-5 (anthropic): known", "context window", "provider tools  code_execution, mcp, web_fetch, web_search"}},
		{"anthropic", "claude-opus-4-1", nil, "", []string{"claude-opus-4-1 (anthropic): known"}},
		{"openai", "", []string{"my-finetune"}, "", []string{"my-finetune (openai): not in the table"}},
		{"anthropic", "", nil, "name a model", nil},
		{"nosuch", "", []string{"x"}, "nosuch", nil},
	} {
		s := Settings{}
		s.Provider, s.Model = tt.provider, tt.model
		rows, err := ModelRows(s, tt.ids)
		if tt.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errHas) || ExitCode(err) != 2 {
				t.Errorf("%s %v: %v, want %q", tt.provider, tt.ids, err, tt.errHas)
			}
			continue
		}
		var b bytes.Buffer
		if err != nil || WriteModels(&b, rows) != nil {
			t.Fatalf("%s %v: %v", tt.provider, tt.ids, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s %v lacks %q:\n%s", tt.provider, tt.ids, w, b.String())
			}
		}
	}
}

// agent tools and agent mcp list over a real MCP server, and agent tools
// search over a catalog file with --queries and --history.
func TestToolsReportMCPListAndSearchFiles(t *testing.T) {
	f := newFixture(t, true)
	f.flags.Defer = "true"
	s, err := Load(f.flags, f.getenv)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := BuildToolsReport(t.Context(), s, Options{Getenv: f.getenv, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	// read_resource is the one active tool: the server offers resources.
	if rep.Active != 1 || rep.Deferred != 2 || len(rep.Servers) != 2 || rep.Servers[1].Server != "tt" || rep.Servers[1].Tokens == 0 || rep.Sent.Eager <= 0 {
		t.Errorf("report %+v", rep)
	}
	var b bytes.Buffer
	if err := WriteToolsReport(&b, rep, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"anthropic claude-sonnet-4-5, search", "1 active, 2 deferred", "tt__get_weather  tt      deferred", "read_resource    -       active", "saved by deferral"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("tools report lacks %q:\n%s", want, b.String())
		}
	}
	entries, err := MCPList(t.Context(), s, false, 30*time.Second, "test")
	if err != nil {
		t.Fatal(err)
	}
	var tt *MCPEntry
	for i := range entries {
		if entries[i].Name == "tt" {
			tt = &entries[i]
		}
	}
	if tt == nil || tt.State != mcptools.StateRunning || tt.Tools != 2 || tt.Deferred != 2 || len(tt.ToolNames) != 2 {
		t.Fatalf("mcp list: %+v", entries)
	}
	// The "protocol" setting, and the revision the server was spoken to in.
	if tt.Protocol != "auto" || tt.Revision == "" {
		t.Errorf("mcp list: tt's protocol %q, revision %q; want auto and the revision spoken", tt.Protocol, tt.Revision)
	}
	for _, e := range entries {
		if e.Preset && e.State == mcptools.StateRunning {
			t.Errorf("preset %s started without --all", e.Name)
		}
		if e.Protocol != "auto" {
			t.Errorf("mcp list: %s's protocol %q, want auto (unset)", e.Name, e.Protocol)
		}
	}

	dir := t.TempDir()
	catalog := filepath.Join(dir, "tools.jsonl")
	writeFile(t, catalog, `{"id": "t1", "name": "pdf_convert", "description": "Convert a docx document to pdf"}
{"id": "t2", "name": "send_mail", "description": "Send an email message"}
{"id": "t3", "name": "doc_export", "description": "Export a document"}
`)
	history := filepath.Join(dir, "history.jsonl")
	writeFile(t, history, `{"query": "turn my document into something printable", "tool": "t3"}`+"\n")
	queries := filepath.Join(dir, "queries.jsonl")
	writeFile(t, queries, `{"id": "q1", "query": "convert docx to pdf"}

{"query": "/[/"}
`)
	ix, err := SearchIndex(t.Context(), s, catalog, history, "test", func(w string) { t.Errorf("warning %s", w) })
	if err != nil {
		t.Fatal(err)
	}
	hits, err := ix.Search("document printable", search.Options{Limit: 3})
	if err != nil || len(hits) == 0 || hits[0].ID != "t3" {
		t.Errorf("history did not lead to t3: %+v %v", hits, err)
	}
	b.Reset()
	if err := AnswerQueries(ix, search.Options{Limit: 2, Mode: search.ModeAuto}, queries, &b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"id":"q1","results":["t1"`) || !strings.Contains(lines[1], `"id":3`) || !strings.Contains(lines[1], `"error"`) {
		t.Errorf("answers:\n%s", b.String())
	}
	for _, c := range []struct{ catalog, history, queries string }{
		{filepath.Join(dir, "missing.jsonl"), "", ""},
		{catalog, filepath.Join(dir, "missing.jsonl"), ""},
	} {
		if _, err := SearchIndex(t.Context(), s, c.catalog, c.history, "test", nil); ExitCode(err) != 2 {
			t.Errorf("%v: %v (exit %d), want a usage error", c, err, ExitCode(err))
		}
	}
	if err := AnswerQueries(ix, search.Options{Limit: 2}, filepath.Join(dir, "missing.jsonl"), &b); ExitCode(err) != 2 {
		t.Errorf("missing queries file: %v", err)
	}
	writeFile(t, queries, "not json\n")
	if err := AnswerQueries(ix, search.Options{Limit: 2}, queries, &b); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad queries line: %v", err)
	}
}

// Compaction through the app (agent sessions compact) and the report it
// prints; the transcript then shows the boundary.
func TestCompactReport(t *testing.T) {
	f := newFixture(t, false)
	f.fake.Script = anthropictest.NewScript(anthropictest.Turn{Text: "One."}, anthropictest.Turn{Text: "Two."}, anthropictest.Turn{Text: "We said one and two."})
	a := f.open(t, nil)
	for _, p := range []string{"first", "second"} {
		if err := a.Print(t.Context(), p, PrintOptions{Format: "text", Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}); err != nil {
			t.Fatal(err)
		}
	}
	cp, err := a.Compact(t.Context(), "numbers")
	if err != nil {
		t.Fatal(err)
	}
	rep := a.ReportCompaction(cp)
	if rep.SessionID != a.Session().ID() || rep.Messages != 4 || rep.Compacted.Summary == "" || rep.Compacted.Boundary == 0 {
		t.Fatalf("report %+v", rep)
	}
	var b bytes.Buffer
	WriteCompaction(&b, rep)
	if !strings.Contains(b.String(), "Compacted session "+rep.SessionID+" (compaction 1)") || !strings.Contains(b.String(), "We said one and two.") {
		t.Errorf("compaction:\n%s", b.String())
	}
	last := f.fake.Requests()[2]
	if !strings.Contains(string(last.Messages()[len(last.Messages())-1]), "numbers") {
		t.Errorf("the focus was not sent: %s", last.Messages()[len(last.Messages())-1])
	}
	err = WithSessionDB(t.Context(), f.flags.DBPath, true, func(db *store.DB) error {
		e, err := db.Export(t.Context(), rep.SessionID)
		if err != nil {
			return err
		}
		b.Reset()
		WriteTranscript(&b, e)
		return nil
	})
	if err != nil || !strings.Contains(b.String(), "── compacted (1)") {
		t.Errorf("transcript after compaction (%v):\n%s", err, b.String())
	}
	if err := WithSessionDB(t.Context(), f.flags.DBPath, false, func(db *store.DB) error {
		_, err := db.Export(t.Context(), "zzzz")
		return err
	}); ExitCode(err) != 2 {
		t.Errorf("a wrong ID: %v, want a usage error", err)
	}
}

// agent agents lists the profiles with their files relative to the
// working directory; a broken profile is a warning; /agent applies one.
func TestAgentsReportAndSetAgent(t *testing.T) {
	f := newFixture(t, false)
	f.flags.Trust = true
	writeFile(t, filepath.Join(f.flags.Workdir, ".agent", "agents", "reviewer.md"), "---\ndescription: Reviews code\nmodel: claude-haiku-4-5\n---\nYou review code.\n")
	writeFile(t, filepath.Join(f.flags.Workdir, ".agent", "agents", "broken.md"), "---\nmodel: [\n---\n")
	s, err := Load(f.flags, f.getenv)
	if err != nil {
		t.Fatal(err)
	}
	rep := AgentsReport(s)
	if len(rep.Agents) != 1 || rep.Agents[0].Name != "reviewer" || len(rep.Errors) != 1 {
		t.Fatalf("report %+v", rep)
	}
	var out, errb bytes.Buffer
	if err := WriteAgents(&out, &errb, rep, f.flags.Workdir); err != nil {
		t.Fatal(err)
	}
	noEscapes(t, "agents", out.String())
	if !strings.Contains(out.String(), filepath.Join(".agent", "agents", "reviewer.md")) || strings.Contains(out.String(), f.flags.Workdir) ||
		!strings.Contains(out.String(), "claude-haiku-4-5") || !strings.Contains(errb.String(), "broken") {
		t.Errorf("agents:\n%s\nstderr: %s", out.String(), errb.String())
	}
	out.Reset()
	if err := WriteAgents(&out, &errb, AgentsList{}, "/"); err != nil || !strings.Contains(out.String(), "No agent profiles") {
		t.Errorf("none: %q %v", out.String(), err)
	}

	// A Claude Code alias is shown with the id it stands for (#31), on the
	// profile's provider, or what the user pinned it to.
	writeFile(t, filepath.Join(f.flags.Workdir, ".agent", "agents", "helper.md"), "---\nsubagent: true\nmodel: sonnet\nfallback_model: haiku\n---\nHelp.\n")
	writeFile(t, filepath.Join(f.flags.Workdir, ".agent", "agents", "cloud.md"), "---\nprovider: vertex\nmodel: opus\n---\nHelp.\n")
	for _, tc := range []struct {
		env                        map[string]string
		helper, helperFallback     string
		cloud, helperLine, cloudLn string
	}{
		{nil, "claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-5@20251101", "sonnet (claude-sonnet-4-5)", "vertex:opus (claude-opus-4-5@20251101)"},
		{map[string]string{"ANTHROPIC_DEFAULT_SONNET_MODEL": "claude-sonnet-5-5", "ANTHROPIC_DEFAULT_OPUS_MODEL": "claude-opus-5-5@20261101"},
			"claude-sonnet-5-5", "claude-haiku-4-5", "claude-opus-5-5@20261101", "sonnet (claude-sonnet-5-5)", "vertex:opus (claude-opus-5-5@20261101)"},
	} {
		for k, v := range tc.env {
			f.env[k] = v
		}
		s, err := Load(f.flags, f.getenv)
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string]AgentRow{}
		for _, r := range AgentsReport(s).Agents {
			rows[r.Name] = r
		}
		if h, c := rows["helper"], rows["cloud"]; h.Model != "sonnet" || h.ModelID != tc.helper || h.FallbackModelID != tc.helperFallback ||
			c.ModelID != tc.cloud || rows["reviewer"].ModelID != "" {
			t.Errorf("env %v: helper %+v, cloud %+v, reviewer %+v", tc.env, h, c, rows["reviewer"])
		}
		out.Reset()
		if err := WriteAgents(&out, &errb, AgentsReport(s), f.flags.Workdir); err != nil ||
			!strings.Contains(out.String(), tc.helperLine) || !strings.Contains(out.String(), tc.cloudLn) {
			t.Errorf("env %v: agents table lacks %q or %q:\n%s", tc.env, tc.helperLine, tc.cloudLn, out.String())
		}
		b, _ := json.Marshal(AgentsReport(s))
		if !strings.Contains(string(b), `"model":"sonnet","model_id":"`+tc.helper+`"`) {
			t.Errorf("agents --json: %s", b)
		}
	}
	// The pin is what the profile runs on, too.
	fl := f.flags
	fl.Agent = "helper"
	if s, err := Load(fl, f.getenv); err != nil || s.Model != "claude-sonnet-5-5" || s.FallbackModel != "claude-haiku-4-5" {
		t.Errorf("--agent helper with ANTHROPIC_DEFAULT_SONNET_MODEL: model %q, fallback %q, %v", s.Model, s.FallbackModel, err)
	}
	// A provider with no Claude: the error names the variable that pins it.
	writeFile(t, filepath.Join(f.flags.Workdir, ".agent", "agents", "chat.md"), "---\nprovider: openai-chat\nmodel: haiku\n---\nHelp.\n")
	fl.Agent = "chat"
	if _, err := Load(fl, f.getenv); err == nil || !strings.Contains(err.Error(), "set ANTHROPIC_DEFAULT_HAIKU_MODEL") {
		t.Errorf("haiku on openai-chat: %v", err)
	}
	f.env["ANTHROPIC_DEFAULT_HAIKU_MODEL"] = "gpt-4.1-mini"
	if s, err := Load(fl, f.getenv); err != nil || s.Model != "gpt-4.1-mini" {
		t.Errorf("haiku pinned on openai-chat: %q %v", s.Model, err)
	}
	for _, k := range []string{"ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL"} {
		delete(f.env, k)
	}

	a := f.open(t, func(fl *Flags) { fl.Trust = true })
	if _, err := a.SetAgent("reviewer"); err != nil {
		t.Fatal(err)
	}
	if _, m := a.Session().Target(); m != "claude-haiku-4-5" || a.Session().TurnContext().System != "You review code." || a.Meta().Settings.Agent != "reviewer" {
		t.Errorf("after /agent reviewer: model %s, system %q, stored %q", m, a.Session().TurnContext().System, a.Meta().Settings.Agent)
	}
	if _, err := a.SetAgent("nosuch"); err == nil {
		t.Error("an unknown profile was applied")
	}
}

// What tool search learns from a call it led to: counted per tool,
// exported, forgotten and imported again.
func TestLearnedUses(t *testing.T) {
	f := newFixture(t, true)
	f.flags.NoLearn = false
	f.fake.Script = anthropictest.NewScript(
		anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Oslo"}},
		anthropictest.Turn{Text: "Cold."},
	)
	a := f.open(t, func(fl *Flags) { fl.Defer = "true" })
	if err := a.Print(t.Context(), "what is the weather forecast in Oslo", PrintOptions{Format: "text", Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	s, err := Load(f.flags, f.getenv)
	if err != nil {
		t.Fatal(err)
	}
	stats := UsageStats(t.Context(), s)
	if len(stats) != 1 || stats[0].Tool != "tt__get_weather" || stats[0].Called != 1 {
		t.Fatalf("usage %+v", stats)
	}
	// The call's request is stored analysed: a start reads its terms.
	if uses, an := LearnedUses(t.Context(), s); len(uses) != 1 || !slices.Contains(storedTerms(t, uses[0], an), "oslo") {
		t.Errorf("learned %+v (%+v)", uses, an)
	}
	file := filepath.Join(t.TempDir(), "learned.jsonl")
	msg, err := ShareLearned(t.Context(), s, "export", file)
	if err != nil || !strings.Contains(msg, "exported 1 learned pairs") {
		t.Fatalf("export: %q %v", msg, err)
	}
	if n, err := ForgetToolUses(t.Context(), s, "tt__get_weather"); err != nil || n == 0 {
		t.Errorf("forget: %d %v", n, err)
	}
	if stats := UsageStats(t.Context(), s); len(stats) != 0 {
		t.Errorf("after forget: %+v", stats)
	}
	for _, want := range []string{"imported 1 new learned pairs of 1", "imported 0 new learned pairs of 1"} {
		if msg, err := ShareLearned(t.Context(), s, "import", file); err != nil || !strings.Contains(msg, want) {
			t.Errorf("import: %q %v, want %q", msg, err, want)
		}
	}
	if uses, an := LearnedUses(t.Context(), s); len(uses) != 1 || !slices.Contains(storedTerms(t, uses[0], an), "oslo") {
		t.Errorf("imported: learned %+v (%+v), want it stored analysed", uses, an)
	}
	if _, err := ShareLearned(t.Context(), s, "import", file+".missing"); ExitCode(err) != 2 {
		t.Errorf("missing import file: %v", err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Error(err)
	}
}

// storedTerms is the terms of a use read analysed from the store.
func storedTerms(t *testing.T, u search.Use, an *search.Analysis) []string {
	t.Helper()
	if u.Analysed == nil || an == nil || an.Version != search.AnalysisVersion(search.DefaultConfig().Stemmer) {
		t.Fatalf("use %+v not read analysed (analysis %+v)", u, an)
	}
	var out []string
	for b := u.Analysed; len(b) > 0; {
		n, k := binary.Uvarint(b)
		if k <= 0 || n >= uint64(len(an.Terms)) {
			t.Fatalf("analysed use %v: bad term number", u.Analysed)
		}
		out, b = append(out, an.Terms[n]), b[k:]
	}
	return out
}

// On a terminal (width > 0) agent mcp list, agent tools and agent tools
// search fit it: a table's rows are cut with an ellipsis (the last
// column, a description or annotations, first), a detail that says what
// to do (a server's command or error, a quarantined tool's problem) goes
// under its row, wrapped, and the notes are wrapped between words; piped
// (width 0) every field and note is whole, on its row, as scripts read it.
func TestTablesFitTheTerminal(t *testing.T) {
	longDetail := "npx -y @modelcontextprotocol/server-everything stdio --with --many --arguments-that-run-on"
	entries := []MCPEntry{
		{Status: mcptools.Status{Name: "everything", Transport: "stdio", State: "available", Source: "preset", Target: longDetail},
			ToolNames: []MCPTool{{Name: "everything__" + strings.Repeat("x", 60), ServerTool: strings.Repeat("x", 60), Deferred: true}}},
		{Status: mcptools.Status{Name: "gh", Transport: "http", State: mcptools.StateRunning, Tools: 1, Source: "user", Target: "https://api.githubcopilot.com/mcp/"},
			keptIn:    "files of mode 0600 in /home/someone/.local/share/agent/oauth (no D-Bus session bus for a Secret Service)",
			ToolNames: []MCPTool{{Name: "gh__pr", ServerTool: "pr"}}},
	}
	report := &ToolsReport{Provider: "anthropic", Model: "claude-sonnet-4-5", Search: "native", Resolved: "native", Active: 1, Deferred: 1,
		Warnings: []string{"MCP server slow did not list its tools within 30s: its tools are left out of this run (agent mcp list shows why)"},
		Servers:  []ServerTokens{{Server: "gh", Tools: 2, Deferred: 1, Tokens: 900}},
		Tools: []ToolRow{{Name: "gh__create_pull_request", Server: "gh", Deferred: true, Tokens: 500, Annotations: "destructive, idempotent, open-world"},
			{Name: "gh__pr", Server: "gh", Tokens: 400}},
		Quarantined: []QuarantinedRow{{Name: "gh__bad", Server: "gh", Problem: "input schema: properties.x: type must be a string or an array of strings, got a number"}},
	}
	hits := []search.Hit{{Name: "everything__convert_documents", Server: "everything", Score: 12.5,
		Description: "Converts documents between formats: docx, pdf, odt, rtf, markdown, html and plain text, keeping the layout"}}
	for _, tt := range []struct {
		name  string
		write func(w io.Writer, width int) error
		cells []string // piped, each is printed whole
		notes []string // wrapped on a terminal, never cut
		whole bool     // nothing is cut on a terminal either
	}{
		{"mcp list", func(w io.Writer, width int) error { return WriteMCPList(w, entries, true, width) },
			[]string{"preset  " + longDetail, entries[0].ToolNames[0].Name},
			[]string{longDetail, "Sign-ins are kept in " + entries[1].keptIn + "."}, false},
		{"tools", func(w io.Writer, width int) error { return WriteToolsReport(w, report, width) },
			[]string{report.Tools[0].Annotations, "gh      " + report.Quarantined[0].Problem},
			[]string{report.Quarantined[0].Problem, "warning: " + report.Warnings[0], "anthropic claude-sonnet-4-5, search native (resolves to native): 1 active, 1 deferred",
				"in the model's context per request: about 0 tokens of tool definitions (every tool eager: 0; saved by deferral: 0)"}, true},
		{"tools search", func(w io.Writer, width int) error { return WriteHits(w, hits, "convert", 40, width) },
			[]string{"Converts documents between formats: docx, pdf, odt, rtf, markdown, html and pla…"}, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var piped bytes.Buffer
			if err := tt.write(&piped, 0); err != nil {
				t.Fatal(err)
			}
			for _, w := range append(tt.cells, tt.notes...) {
				if !strings.Contains(piped.String(), w) {
					t.Errorf("piped, %q is not whole:\n%s", w, piped.String())
				}
			}
			for _, width := range []int{80, 60} {
				var term bytes.Buffer
				if err := tt.write(&term, width); err != nil {
					t.Fatal(err)
				}
				cut := 0
				for _, l := range strings.Split(term.String(), "\n") {
					if w := ansi.StringWidth(l); w > width {
						t.Errorf("width %d: a line of %d columns: %q", width, w, l)
					}
					if strings.HasSuffix(l, "…") {
						cut++
					}
				}
				if cut == 0 && !tt.whole {
					t.Errorf("width %d: no row was cut:\n%s", width, term.String())
				}
				joined := strings.Join(strings.Fields(term.String()), " ")
				for _, n := range tt.notes {
					if !strings.Contains(joined, n) {
						t.Errorf("width %d: the note %q is not all there:\n%s", width, n, term.String())
					}
				}
			}
		})
	}
}

// The notes of agent agents (no profile) and agent models fit an
// 80-column terminal: they were 140 and 88 columns wide.
func TestListNotesFitEightyColumns(t *testing.T) {
	var agents, models bytes.Buffer
	if err := WriteAgents(&agents, io.Discard, AgentsList{}, "/"); err != nil {
		t.Fatal(err)
	}
	if err := WriteModelList(&models, "vertex-gemini", make([]ModelChoice, 99)); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(agents.String()+models.String(), "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("a line of %d columns: %q", w, l)
		}
	}
}

// On a terminal too narrow for a hit's description beside its row, the
// description goes on a line of its own under it: at 80 columns
// server-everything's long tool names left it ten cells ("Trigger a …").
// Where it has room it stays in its column, and piped output is one row a
// hit whatever the names.
func TestHitsDescriptionUnderItsRow(t *testing.T) {
	const desc = "Trigger an elicitation request that the client answers as a background task"
	long := []search.Hit{{Name: "everything__trigger-elicitation-request-async", Server: "everything", Score: 3.3, Description: desc}}
	short := []search.Hit{{Name: "gh__pr", Server: "gh", Score: 1, Description: desc}}
	for _, tc := range []struct {
		name  string
		hits  []search.Hit
		width int
		under bool
	}{
		{"long names at 80", long, 80, true},
		{"long names at 120", long, 120, false},
		{"short names at 80", short, 80, false},
		{"piped", long, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteHits(&b, tc.hits, "ask", 19, tc.width); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			wantLines := map[bool]int{true: 3, false: 2}[tc.under]
			if len(lines) != wantLines {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), wantLines, b.String())
			}
			for _, l := range lines {
				if tc.width > 0 && ansi.StringWidth(l) > tc.width {
					t.Errorf("a line of %d columns at %d: %q", ansi.StringWidth(l), tc.width, l)
				}
			}
			if tc.under && !strings.HasPrefix(lines[2], "    Trigger an elicitation request that the client answers") {
				t.Errorf("the description is not under its row, readable:\n%s", b.String())
			}
			if !tc.under && !strings.Contains(lines[1], "Trigger an") {
				t.Errorf("the description left its row:\n%s", b.String())
			}
		})
	}
}

// agent tools' ANNOTATIONS column on an 80-column terminal: a read-only
// tool shows read-only alone (the MCP specification says destructive and
// idempotent mean nothing then), and the hints fit instead of being cut to
// "read…": short words throughout the column, wrapped at their commas, or
// on a line of their own under a row whose tool name leaves no room.
// Piped, every hint is whole on its row; the rows' data (--json) keeps the
// hints as the server sent them.
func TestToolsAnnotationsFit(t *testing.T) {
	rows := []ToolRow{
		{Name: "memory__read_graph", Server: "memory", Tokens: 43, Annotations: "read-only, non-destructive, idempotent, closed-world"},
		{Name: "memory__delete_entities", Server: "memory", Tokens: 77, Annotations: "destructive, idempotent, closed-world"},
		{Name: "memory__create_entities", Server: "memory", Tokens: 132, Annotations: "non-destructive, closed-world"},
		{Name: "files__list_directory_with_sizes", Server: "files", Tokens: 132, Annotations: "read-only, closed-world"},
		{Name: "read_resource", Tokens: 140, Annotations: "read-only"},
	}
	long := ToolRow{Name: "everything__trigger-elicitation-request-async", Server: "everything", Deferred: true, Tokens: 99,
		Annotations: "destructive, idempotent, open-world"}
	for _, tt := range []struct {
		name  string
		rows  []ToolRow
		width int
		want  []string // lines, trailing blanks trimmed, in order
		not   []string
	}{
		{"piped", rows, 0, []string{
			"memory__read_graph                memory  active  43      read-only, closed-world",
			"memory__delete_entities           memory  active  77      destructive, idempotent, closed-world",
			"memory__create_entities           memory  active  132     non-destructive, closed-world",
		}, []string{"non-destructive, idempotent"}},
		{"80 columns", rows, 80, []string{
			"memory__read_graph                memory  active  43      read-only, closed",
			"memory__delete_entities           memory  active  77      destructive,",
			"                                                          idempotent, closed",
			"memory__create_entities           memory  active  132     additive, closed",
			"files__list_directory_with_sizes  files   active  132     read-only, closed",
			"read_resource                     -       active  140     read-only",
		}, []string{"…", "closed-world"}},
		{"a long name", append([]ToolRow{long}, rows...), 80, []string{
			"TOOL                                           SERVER      SET       TOKENS",
			"everything__trigger-elicitation-request-async  everything  deferred  99",
			"    destructive, idempotent, open-world",
			"memory__read_graph                             memory      active    43",
			"    read-only, closed-world",
		}, []string{"…", "additive"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep := &ToolsReport{Provider: "anthropic", Model: "claude-sonnet-4-5", Tools: tt.rows}
			var b bytes.Buffer
			if err := WriteToolsReport(&b, rep, tt.width); err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, l := range strings.Split(b.String(), "\n") {
				lines = append(lines, strings.TrimRight(l, " "))
				if tt.width > 0 && ansi.StringWidth(l) > tt.width {
					t.Errorf("a line of %d columns: %q", ansi.StringWidth(l), l)
				}
			}
			out := strings.Join(lines, "\n")
			if !strings.Contains(out, strings.Join(tt.want, "\n")) {
				t.Errorf("want the lines\n%s\nin\n%s", strings.Join(tt.want, "\n"), out)
			}
			for _, n := range tt.not {
				if strings.Contains(out, n) {
					t.Errorf("%q is in\n%s", n, out)
				}
			}
			if rep.Tools[0].Annotations != tt.rows[0].Annotations || !strings.Contains(rows[0].Annotations, "non-destructive, idempotent") {
				t.Errorf("the rows' hints changed: %q", rep.Tools[0].Annotations)
			}
		})
	}
}
