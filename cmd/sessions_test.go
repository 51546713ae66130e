package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/store"
)

func runSessions(t *testing.T, g *Globals, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	c := newSessionsCmd(g)
	c.SetArgs(args)
	c.SetOut(&out)
	c.SetErr(&errb)
	c.SilenceUsage, c.SilenceErrors = true, true
	err := c.ExecuteContext(t.Context())
	return out.String(), errb.String(), err
}

func TestSessionsCommands(t *testing.T) {
	ctx := t.Context()
	g := &Globals{Flags: app.Flags{DBPath: filepath.Join(t.TempDir(), "agent.db")}}
	if out, _, err := runSessions(t, g); err != nil || !strings.Contains(out, "No sessions yet") {
		t.Fatalf("empty list: %q %v", out, err)
	}
	db, err := store.Open(ctx, g.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < 3; i++ {
		s, err := db.Create(ctx, store.SessionMeta{Workdir: "/w", Provider: "anthropic", Model: "claude-x", Settings: store.Settings{Search: agent.SearchNative}})
		if err != nil {
			t.Fatal(err)
		}
		msgs := []agent.Message{
			{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("Find the weather tool, please")}},
			{Role: agent.RoleAssistant, Parts: []agent.Part{
				agent.SearchCallPart(agent.SearchCall{ID: "s1", Where: agent.WhereProvider, Query: "weather"}),
				agent.SearchResultPart(agent.SearchResult{CallID: "s1", Where: agent.WhereProvider, Tools: []string{"get_weather"}}),
				agent.TextPart("Found it."),
				agent.RawPart("anthropic", "messages", json.RawMessage(`[{"type":"text","text":"Found it."}]`)),
			}},
		}
		for _, m := range msgs {
			if err := s.AppendMessage(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		ids = append(ids, s.ID())
	}
	// A session with no message is not listed, even with --all (its help
	// says so): a run killed before its prompt was saved leaves one.
	empty, err := db.Create(ctx, store.SessionMeta{Workdir: "/w", Provider: "anthropic", Model: "claude-x"})
	if err != nil {
		t.Fatal(err)
	}
	empty.Close()
	db.Close()

	out, _, err := runSessions(t, g)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[1], "anthropic/claude-x") ||
		!strings.Contains(lines[1], "Find the weather tool, please") {
		t.Fatalf("table:\n%s", out)
	}
	for _, want := range []string{"UPDATED", "TITLE", "PROVIDER/MODEL", "MESSAGES", "SEARCHES"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("header lacks %s: %s", want, lines[0])
		}
	}
	if f := strings.Fields(lines[1]); f[len(f)-2] != "2" || f[len(f)-1] != "1" {
		t.Errorf("messages/searches columns: %s", lines[1])
	}
	_, stderr, _ := runSessions(t, g, "--limit", "2")
	if !strings.Contains(stderr, "--all") {
		t.Errorf("a cut list should say so: %q", stderr)
	}
	out, _, _ = runSessions(t, g, "--json", "--all")
	var list []store.Summary
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 3 {
		t.Fatalf("--json --all: %v %s", err, out)
	}
	for _, sum := range list {
		if sum.ID == empty.ID() {
			t.Errorf("--all listed the session with no message: %s", out)
		}
	}

	out, _, err = runSessions(t, g, "show", ids[0][:6])
	if err != nil || !strings.Contains(out, "Session "+ids[0]) || !strings.Contains(out, "Found it.") ||
		!strings.Contains(out, "⌕ found: get_weather") || !strings.Contains(out, "Discovered tools: get_weather") {
		t.Fatalf("show: %v\n%s", err, out)
	}
	out, _, err = runSessions(t, g, "show", "--json", ids[0])
	var e store.Export
	var raw bytes.Buffer
	if err == nil && json.Unmarshal([]byte(out), &e) == nil && len(e.Messages) == 2 {
		json.Compact(&raw, e.Messages[1].RawFor("anthropic", "messages").Data)
	}
	if raw.String() != `[{"type":"text","text":"Found it."}]` {
		t.Fatalf("show --json: %v\n%s", err, out)
	}

	if out, _, err = runSessions(t, g, "rm", ids[0]); err != nil || !strings.Contains(out, "Deleted session "+ids[0]) {
		t.Fatalf("rm: %v %s", err, out)
	}
	if _, _, err = runSessions(t, g, "show", ids[0]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("show after rm: %v", err)
	}
	var ue *UsageError
	if _, _, err = runSessions(t, g, "show"); !errors.As(err, &ue) {
		t.Fatalf("show without ID: %v", err)
	}
}
