package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// /agent NAME switches the model, prompt and tool list and keeps the
// conversation; /compact summarises it; /sessions resumes a compacted
// session in its compacted form.
func TestTUIAgentSwitchAndCompact(t *testing.T) {
	wd := isolate(t)
	dir := filepath.Join(wd, ".agent", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "terse.md"), []byte("---\nmodel: claude-opus-4-5\ntools: [tt__get_weather]\ndefer: true\n---\nAnswer in one word.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Text: "Hello."},
		anthropictest.Turn{Text: "Yes."},
		anthropictest.Turn{Text: "We greeted each other."},
		anthropictest.Turn{Text: "Fine."},
	))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	db := filepath.Join(t.TempDir(), "a.db")
	b := newTestTUIBackend(t, env, "--base-url", fake.URL, "--db", db, "--mcp-config", testMCPConfig(t), "--mcp", "tt", "--trust")
	run := func(text string) {
		t.Helper()
		for e := range b.Send(t.Context(), text) {
			if e.Type == agent.EventError {
				t.Fatalf("turn %q: %s", text, e.Err)
			}
		}
	}
	run("hi")
	if n := len(b.App().Session().Tools().All()); n != 4 {
		t.Fatalf("%d tools before the switch, want the server's 4", n)
	}
	items, err := b.Agents()
	if err != nil || len(items) != 1 || items[0].Name != "terse" {
		t.Fatalf("agents %+v, %v", items, err)
	}
	if _, err := b.SetAgent("terse"); err != nil {
		t.Fatal(err)
	}
	run("still there?")
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	if last.Model() != "claude-opus-4-5" || !bytes.Contains(last.Body, []byte("Answer in one word.")) || !bytes.Contains(last.Body, []byte(`"hi"`)) {
		t.Errorf("after /agent the request is not the profile's, or lost the conversation:\n%s", last.Body)
	}
	if bytes.Contains(last.Tools(), []byte("tt__send_email")) || !bytes.Contains(last.Tools(), []byte(`"tt__get_weather"`)) {
		t.Errorf("tools after /agent: %s", last.Tools())
	}
	if b.App().Meta().Settings.Agent != "terse" {
		t.Errorf("the session does not record its profile")
	}

	c, err := b.Compact(t.Context(), "")
	if err != nil || c.Boundary != 4 || !strings.Contains(c.Summary, "greeted") {
		t.Fatalf("compact %+v, %v", c, err)
	}
	id := b.App().Session().ID()
	if err := b.New(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Resume(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	run("ok?")
	reqs = fake.Requests()
	if body := reqs[len(reqs)-1].Body; bytes.Contains(body, []byte(`"hi"`)) || !bytes.Contains(body, []byte("We greeted each other.")) {
		t.Errorf("the resumed session does not send its compacted form:\n%s", body)
	}
}
