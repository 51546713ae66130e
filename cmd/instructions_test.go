package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// systemOf is the system prompt of a request to the Anthropic fake.
func systemOf(t *testing.T, r *anthropictest.Request) string {
	t.Helper()
	var body struct {
		System json.RawMessage `json:"system"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.System) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(body.System, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(body.System, &blocks); err != nil {
		t.Fatalf("system %s: %v", body.System, err)
	}
	var b strings.Builder
	for _, x := range blocks {
		b.WriteString(x.Text)
	}
	return b.String()
}

// #30 part 2, end to end through -p: the user's AGENTS.md is always sent,
// an untrusted project's is not (one warning names agent trust); once
// trusted both are, user first; they come back in the summary request of
// agent sessions compact and in the request after it, and after an
// automatic compaction; --no-instructions sends none.
func TestInstructionFilesReachTheRequest(t *testing.T) {
	wd := isolate(t)
	userFile := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agent", "AGENTS.md")
	if err := os.MkdirAll(filepath.Dir(userFile), 0o700); err != nil {
		t.Fatal(err)
	}
	const userRule, projectRule = "USER RULE: answer in English.", "PROJECT RULE: run make test before you finish."
	if err := os.WriteFile(userFile, []byte(userRule+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, "AGENTS.md"), []byte(projectRule+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := anthropictest.NewServer(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	db := filepath.Join(t.TempDir(), "a.db")
	run := func(turns []anthropictest.Turn, args ...string) (PrintResult, []*anthropictest.Request) {
		t.Helper()
		before := len(fake.Requests())
		fake.SetScript(anthropictest.NewScript(turns...))
		res := runAgent(t, env, append([]string{"--base-url", fake.URL, "--db", db, "--output-format", "json"}, args...)...)
		if res.code != 0 {
			t.Fatalf("exit %d: %s", res.code, res.stderr)
		}
		return decodePrint(t, res.stdout), fake.Requests()[before:]
	}
	hi := []anthropictest.Turn{{Text: "Hi."}}

	out, reqs := run(hi, "-p", "hello")
	sys := systemOf(t, reqs[0])
	if !strings.Contains(sys, userRule) || strings.Contains(sys, projectRule) || !strings.Contains(sys, userFile) {
		t.Fatalf("untrusted: system prompt\n%s", sys)
	}
	if len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "agent trust") || !strings.Contains(out.Warnings[0], "AGENTS.md") {
		t.Fatalf("untrusted: warnings %q", out.Warnings)
	}

	if tr := runAgent(t, nil, "trust"); tr.code != 0 {
		t.Fatalf("agent trust: %s", tr.stderr)
	}
	out, reqs = run(hi, "-p", "hello")
	sys = systemOf(t, reqs[0])
	u, p := strings.Index(sys, userRule), strings.Index(sys, projectRule)
	if u < 0 || p < u || !strings.Contains(sys, `path="`+filepath.Join(wd, "AGENTS.md")+`"`) || len(out.Warnings) != 0 {
		t.Fatalf("trusted: warnings %q, system prompt\n%s", out.Warnings, sys)
	}
	id := out.SessionID

	// agent sessions compact: the summary request and the next one carry
	// the instructions; the next one sends the summary for the turn.
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "The user said hello."}))
	before := len(fake.Requests())
	if res := runAgent(t, env, "sessions", "compact", id, "--base-url", fake.URL, "--db", db); res.code != 0 {
		t.Fatalf("compact: exit %d: %s", res.code, res.stderr)
	}
	if reqs := fake.Requests()[before:]; len(reqs) != 1 || !strings.Contains(systemOf(t, reqs[0]), projectRule) {
		t.Fatalf("the summary request lacks the instructions (%d requests)", len(reqs))
	}
	_, reqs = run(hi, "-p", "and now?", "--resume", id)
	if sys := systemOf(t, reqs[0]); !strings.Contains(sys, userRule) || !strings.Contains(sys, projectRule) {
		t.Fatalf("after compaction: system prompt\n%s", sys)
	}
	if msgs := reqs[0].Messages(); len(msgs) == 0 || !strings.Contains(string(msgs[0]), "The user said hello.") {
		t.Fatalf("after compaction the summary is not sent: %s", msgs)
	}

	// Automatic compaction: a small window fills, the earlier turns are
	// summarised before the request; both requests carry the instructions.
	cfg := writeJSON(t, "config.json", map[string]any{"auto_compact": 0.5,
		"models": map[string]any{"claude-sonnet-4-5": map[string]any{"like": "claude-sonnet-4-5", "context_window": 6000, "default_max_tokens": 1000}}})
	long := strings.Repeat("All work and no play makes a dull model. ", 300)
	out, _ = run([]anthropictest.Turn{{Text: long}}, "-p", "tell me a story", "--config", cfg)
	_, reqs = run([]anthropictest.Turn{{Text: "It was about work."}, {Text: "Short now."}}, "-p", "what was it about?", "--resume", out.SessionID, "--config", cfg)
	if len(reqs) != 2 {
		t.Fatalf("auto compaction: %d requests, want the summary and the turn's", len(reqs))
	}
	for i, r := range reqs {
		if sys := systemOf(t, r); !strings.Contains(sys, projectRule) || !strings.Contains(sys, userRule) {
			t.Fatalf("auto compaction: request %d lacks the instructions:\n%s", i, sys)
		}
	}
	if msgs := reqs[1].Messages(); len(msgs) == 0 || !strings.Contains(string(msgs[0]), "It was about work.") {
		t.Fatalf("auto compaction did not happen: %s", msgs[0])
	}

	// A resume reads the files again; changed since the session's last
	// request, they are sent, and the run says the cache misses once.
	if err := os.WriteFile(userFile, []byte(userRule+" And be brief.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	changed := func(o PrintResult) bool {
		return strings.Contains(strings.Join(o.Warnings, "\n"), "instruction files (AGENTS.md) changed")
	}
	res, reqs := run(hi, "-p", "again", "--resume", id)
	if !changed(res) || !strings.Contains(systemOf(t, reqs[0]), "And be brief.") {
		t.Fatalf("changed instructions on resume: warnings %q", res.Warnings)
	}
	if res, _ = run(hi, "-p", "and again", "--resume", id); changed(res) {
		t.Fatalf("unchanged instructions warned about: %q", res.Warnings)
	}

	_, reqs = run(hi, "-p", "hello", "--no-instructions")
	if sys := systemOf(t, reqs[0]); strings.Contains(sys, userRule) || strings.Contains(sys, projectRule) {
		t.Fatalf("--no-instructions: system prompt\n%s", sys)
	}
}
