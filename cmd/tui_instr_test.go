package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// #30 parts 2 and 3 through the TUI's backend: the instruction files are
// in the request, in /context's data, and again after /compact and /new;
// a custom command runs its prompt on its model for its turn only; an
// untrusted project's AGENTS.md and commands are not used.
func TestTUIInstructionsAndCommands(t *testing.T) {
	wd := isolate(t)
	const rule = "PROJECT RULE: keep answers short."
	writeText(t, filepath.Join(wd, "AGENTS.md"), rule+"\n")
	writeText(t, filepath.Join(wd, ".agent", "commands", "review.md"), "---\ndescription: Review a PR\nargument-hint: <pr>\nmodel: claude-opus-4-5\n---\nReview PR #$1.\n")
	fake := anthropictest.NewServer(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	db := filepath.Join(t.TempDir(), "a.db")
	args := []string{"--base-url", fake.URL, "--db", db}

	untrusted := newTestTUIBackend(t, env, args...)
	if info := untrusted.Info(); len(info.Instructions) != 0 || len(info.Commands) != 0 {
		t.Fatalf("untrusted: instructions %+v, commands %+v", info.Instructions, info.Commands)
	}
	if w := strings.Join(untrusted.App().Warnings(), "\n"); !strings.Contains(w, "agent trust") || !strings.Contains(w, "AGENTS.md") {
		t.Fatalf("untrusted: warnings %q", w)
	}

	if tr := runAgent(t, nil, "trust"); tr.code != 0 {
		t.Fatalf("agent trust: %s", tr.stderr)
	}
	b := newTestTUIBackend(t, env, args...)
	info := b.Info()
	if len(info.Instructions) != 1 || info.Instructions[0].Path != filepath.Join(wd, "AGENTS.md") || info.Instructions[0].Bytes != len(rule) {
		t.Fatalf("instructions for /context: %+v", info.Instructions)
	}
	if len(info.Commands) != 1 || info.Commands[0].Name != "review" || info.Commands[0].ArgumentHint != "<pr>" || info.Commands[0].Source != "project" {
		t.Fatalf("commands: %+v", info.Commands)
	}
	send := func(text string, turns ...anthropictest.Turn) *anthropictest.Request {
		t.Helper()
		fake.SetScript(anthropictest.NewScript(turns...))
		before := len(fake.Requests())
		for e := range b.Send(t.Context(), text) {
			if e.Type == agent.EventError {
				t.Fatalf("turn %q: %s", text, e.Err)
			}
		}
		return fake.Requests()[before]
	}
	r := send("/review 7", anthropictest.Turn{Text: "Looks fine."})
	if m := r.Messages(); r.Model() != "claude-opus-4-5" || !strings.Contains(string(m[len(m)-1]), "Review PR #7.") || !strings.Contains(systemOf(t, r), rule) {
		t.Fatalf("command turn: model %s, body %s", r.Model(), r.Body)
	}
	if got := b.Info().Model; got != "claude-sonnet-4-5" {
		t.Errorf("after the command's turn the session is on %s", got)
	}
	first := systemOf(t, r)
	r = send("and now?", anthropictest.Turn{Text: "Still fine."})
	if r.Model() != "claude-sonnet-4-5" {
		t.Errorf("the turn after the command ran on %s", r.Model())
	}
	// The system prompt, instructions included, is the same bytes on every
	// request of the conversation (the cached prefix).
	if sys := systemOf(t, r); sys != first {
		t.Errorf("the system prompt changed between requests:\n%q\n%q", first, sys)
	}

	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "We reviewed PR 7."}))
	if _, err := b.Compact(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	r = send("next?", anthropictest.Turn{Text: "Next."})
	if m := r.Messages(); !strings.Contains(systemOf(t, r), rule) || !strings.Contains(string(m[0]), "We reviewed PR 7.") {
		t.Fatalf("after /compact: system %q, first message %s", systemOf(t, r), m[0])
	}
	if err := b.New(t.Context()); err != nil {
		t.Fatal(err)
	}
	if r := send("fresh", anthropictest.Turn{Text: "Hi."}); !strings.Contains(systemOf(t, r), rule) {
		t.Fatalf("after /new: system %q", systemOf(t, r))
	}
}

// The same in a real terminal: /context lists the trusted project's
// AGENTS.md, "/rev" completes to the custom command with its hint, and
// running it sends its prompt with the instructions.
func TestInstructionsAndCommandsInTmux(t *testing.T) {
	wd := isolate(t)
	writeText(t, filepath.Join(wd, "AGENTS.md"), "PROJECT RULE: be brief.\n")
	writeText(t, filepath.Join(wd, ".agent", "commands", "review.md"), "---\ndescription: Review a PR\nargument-hint: <pr>\n---\nReview PR #$1 now.\n")
	if tr := runAgent(t, nil, "trust"); tr.code != 0 {
		t.Fatalf("agent trust: %s", tr.stderr)
	}
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Reviewed, all good."}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "HOME": os.Getenv("HOME"),
		"XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "XDG_DATA_HOME": os.Getenv("XDG_DATA_HOME")}
	ts := startTmux(t, env, "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"))
	ts.waitFor("/help for commands")
	ts.send("/context", "Enter")
	ts.waitFor("instruction files in the system prompt: 1 file", filepath.Join(wd, "AGENTS.md"))
	ts.send("/rev")
	ts.waitFor("/review <pr>", "Review a PR (project)")
	ts.send("Tab", "7", "Enter")
	ts.waitFor("Reviewed, all good.")
	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if m := reqs[0].Messages(); !strings.Contains(string(m[len(m)-1]), "Review PR #7 now.") || !strings.Contains(systemOf(t, reqs[0]), "PROJECT RULE: be brief.") {
		t.Fatalf("request: %s", reqs[0].Body)
	}
	ts.quit()
}
