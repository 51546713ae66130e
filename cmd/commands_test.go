package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-dev/agent/pricing"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

func writeText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// #30 part 3, end to end through -p: "/NAME ARGS" runs the command's
// prompt with $ARGUMENTS and $1 filled in, on its model; an untrusted
// project's command is not used (the text goes as typed); trusted, it is,
// but its allowed-tools cannot relax the user's approvals, while a user
// command's can; a bad command file is one line naming file and line.
func TestCustomCommandsThroughPrint(t *testing.T) {
	wd := isolate(t)
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agent", "commands")
	writeText(t, filepath.Join(user, "review.md"), "---\ndescription: Review a PR\nargument-hint: [pr] [priority]\nmodel: claude-opus-4-5\n---\nReview PR #$1 with priority $2. Everything: $ARGUMENTS\n")
	writeText(t, filepath.Join(user, "mail.md"), "---\nallowed-tools: tt__send_email\n---\nSend the mail to $1.\n")
	writeText(t, filepath.Join(user, "broken.md"), "---\ndescription: x\ncolour: red\n---\nbody\n")
	writeText(t, filepath.Join(wd, ".agent", "commands", "git", "ship.md"), "---\nallowed-tools: tt__send_email\n---\nShip $ARGUMENTS and mail $1.\n")
	fake := anthropictest.NewServer(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	db := filepath.Join(t.TempDir(), "a.db")
	cfg := writeJSON(t, "config.json", map[string]any{"require_approval": []string{"*send_email"}})
	run := func(turns []anthropictest.Turn, args ...string) (PrintResult, []*anthropictest.Request) {
		t.Helper()
		before := len(fake.Requests())
		fake.SetScript(anthropictest.NewScript(turns...))
		res := runAgent(t, env, append([]string{"--base-url", fake.URL, "--db", db, "--config", cfg, "--output-format", "json"}, args...)...)
		if res.code != 0 {
			t.Fatalf("exit %d: %s", res.code, res.stderr)
		}
		return decodePrint(t, res.stdout), fake.Requests()[before:]
	}
	hi := []anthropictest.Turn{{Text: "Done."}}
	lastUser := func(r *anthropictest.Request) string {
		m := r.Messages()
		return string(m[len(m)-1])
	}

	out, reqs := run(hi, "-p", `/review 42 "very high"`)
	if got := lastUser(reqs[0]); !strings.Contains(got, `Review PR #42 with priority very high. Everything: 42 \"very high\"`) {
		t.Fatalf("expanded prompt: %s", got)
	}
	if reqs[0].Model() != "claude-opus-4-5" {
		t.Errorf("the command's turn ran on %s, want its model claude-opus-4-5", reqs[0].Model())
	}
	// The result names the model that answered, and prices it.
	if out.Model != "claude-opus-4-5" {
		t.Errorf("the command's turn ran on claude-opus-4-5, its result says model %q", out.Model)
	}
	opus, sonnet := pricing.Price{}, pricing.Price{}
	if p, ok := pricing.Lookup("claude-opus-4-5"); ok {
		opus = p
	}
	if p, ok := pricing.Lookup("claude-sonnet-4-5"); ok {
		sonnet = p
	}
	u := pricing.Usage{Input: out.Usage.InputTokens, Output: out.Usage.OutputTokens, CacheRead: out.Usage.CacheReadInputTokens, CacheWrite: out.Usage.CacheCreationInputTokens}
	if c := out.TotalCostUSD; c == nil || *c != pricing.Round(opus.Cost(u)) || opus.Cost(u) == sonnet.Cost(u) {
		t.Errorf("cost %s, want claude-opus-4-5's %v (not claude-sonnet-4-5's %v)", costText(out.TotalCostUSD), opus.Cost(u), sonnet.Cost(u))
	}
	if w := strings.Join(out.Warnings, "\n"); !strings.Contains(w, filepath.Join(user, "broken.md")+":3: custom command: field colour: unknown field") {
		t.Errorf("the bad command file is not named with its line: %q", out.Warnings)
	}
	// stream-json's init and result name it too.
	fake.SetScript(anthropictest.NewScript(hi...))
	sj := runAgent(t, env, "--base-url", fake.URL, "--db", db, "--config", cfg, "--output-format", "stream-json", "-p", "/review 43")
	lines := strings.Split(strings.TrimSpace(sj.stdout), "\n")
	for _, l := range []string{lines[0], lines[len(lines)-1]} {
		var ev struct{ Type, Model string }
		if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.Model != "claude-opus-4-5" {
			t.Errorf("stream-json %s names model %q, want claude-opus-4-5 (%v): %s", ev.Type, ev.Model, err, l)
		}
	}
	// The session goes on with its own model.
	out, reqs = run(hi, "-p", "thanks", "--resume", out.SessionID)
	if reqs[0].Model() != "claude-sonnet-4-5" || out.Model != "claude-sonnet-4-5" {
		t.Errorf("after the command the session runs %s, its result says %q", reqs[0].Model(), out.Model)
	}

	// Untrusted: the project's command is not one, and -p says why
	// instead of sending it as typed.
	before := len(fake.Requests())
	un := runAgent(t, env, "--base-url", fake.URL, "--db", db, "--config", cfg, "-p", "/ship v1 ops@example.com")
	if un.code != 2 || !strings.Contains(un.stderr, "/ship is a command of this project, which is not trusted") || !strings.Contains(un.stderr, "agent trust") || len(fake.Requests()) != before {
		t.Fatalf("untrusted project's command: exit %d, %d requests: %s", un.code, len(fake.Requests())-before, un.stderr)
	}

	// Trusted: it expands, but its allowed-tools are ignored with a warning:
	// -p without --yes denies the call that needs approval.
	if tr := runAgent(t, nil, "trust"); tr.code != 0 {
		t.Fatalf("agent trust: %s", tr.stderr)
	}
	mail := []anthropictest.Turn{{Call: "tt__send_email", Input: map[string]any{"to": "ops@example.com", "body": "shipped"}}, {Text: "Sent."}}
	out, reqs = run(mail, "-p", "/ship v1 ops@example.com", "--mcp-config", testMCPConfig(t), "--mcp", "tt")
	if got := lastUser(reqs[0]); !strings.Contains(got, "Ship v1 ops@example.com and mail v1.") {
		t.Fatalf("trusted project's command: %s", got)
	}
	if len(out.ToolCalls) != 1 || !out.ToolCalls[0].IsError || !strings.Contains(strings.Join(out.Warnings, "\n"), "allowed-tools of /ship") {
		t.Fatalf("a project's allowed-tools relaxed the approvals: calls %+v, warnings %q", out.ToolCalls, out.Warnings)
	}
	// The user's command may: the call runs without asking.
	out, reqs = run(mail, "-p", "/mail ops@example.com", "--mcp-config", testMCPConfig(t), "--mcp", "tt")
	if len(out.ToolCalls) != 1 || out.ToolCalls[0].IsError || len(reqs) != 2 || bytes.Contains(reqs[1].Body, []byte("denied")) {
		t.Fatalf("a user command's allowed-tools did not allow the call: %+v", out.ToolCalls)
	}
	// Only for that turn: the next one asks again (and -p denies).
	out, _ = run(mail, "-p", "mail ops@example.com again", "--mcp-config", testMCPConfig(t), "--mcp", "tt")
	if len(out.ToolCalls) != 1 || !out.ToolCalls[0].IsError {
		t.Fatalf("allowed-tools outlived the command's turn: %+v", out.ToolCalls)
	}
}

// costText is a total_cost_usd as the JSON says it (null: unpriced).
func costText(c *float64) string {
	if c == nil {
		return "null"
	}
	return strconv.FormatFloat(*c, 'g', -1, 64)
}

// A custom command whose model: is another provider's runs its turn
// there, and -p's JSON says so: provider names the provider that
// answered as model names its model, in json's result and stream-json's
// init and result; the next turn is the session's own again.
func TestCustomCommandOfAnotherProviderThroughPrint(t *testing.T) {
	isolate(t)
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agent", "commands")
	writeText(t, filepath.Join(user, "ask.md"), "---\nmodel: openai:gpt-5.4\n---\nAsk $ARGUMENTS.\n")
	anth := anthropictest.NewServer(t)
	oai := rt.NewServer(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": anth.URL,
		"OPENAI_API_KEY": oai.APIKey, "OPENAI_BASE_URL": oai.URL}
	db := filepath.Join(t.TempDir(), "a.db")
	var session string
	for _, tt := range []struct {
		name, prompt, format string
		provider, model      string
	}{
		{"command, json", "/ask Ann", "json", "openai", "gpt-5.4"},
		{"command, stream-json", "/ask Bob", "stream-json", "openai", "gpt-5.4"},
		{"the session's own", "thanks", "json", "anthropic", "claude-sonnet-4-5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			anth.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Done."}))
			oai.Script(rt.Turn{rt.Text("Asked.")})
			args := []string{"--provider", "anthropic", "--model", "claude-sonnet-4-5", "--db", db, "--output-format", tt.format, "-p", tt.prompt}
			if session != "" {
				args = append(args, "--resume", session)
			}
			res := runAgent(t, env, args...)
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			lines := []string{res.stdout}
			if tt.format == "stream-json" {
				all := strings.Split(strings.TrimSpace(res.stdout), "\n")
				lines = []string{all[0], all[len(all)-1]}
			}
			for _, l := range lines {
				var ev struct {
					Type, Provider, Model string
					SessionID             string `json:"session_id"`
				}
				if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.Provider != tt.provider || ev.Model != tt.model {
					t.Errorf("%s %s says provider %q model %q, want %s %s (%v): %s", tt.format, ev.Type, ev.Provider, ev.Model, tt.provider, tt.model, err, l)
				}
				session = ev.SessionID
			}
		})
	}
	if n := len(oai.Requests()); n != 2 {
		t.Errorf("OpenAI got %d requests, want the two commands'", n)
	}
	if n := len(anth.Requests()); n != 1 {
		t.Errorf("Anthropic got %d requests, want the session's own turn", n)
	}
}

// stream-json's init names the provider as the result does, as the user
// named it: "ollama", not the "openai-chat" its adapter calls itself.
func TestStreamJSONInitNamesTheProviderAsTheResult(t *testing.T) {
	isolate(t)
	f := chattest.NewServer(t)
	f.Script(chattest.Text("Hi."))
	res := runAgent(t, nil, "-p", "hello", "--provider", "ollama", "--base-url", f.URL+"/v1", "--model", "qwen3",
		"--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "stream-json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	all := strings.Split(strings.TrimSpace(res.stdout), "\n")
	for _, l := range []string{all[0], all[len(all)-1]} {
		var ev struct{ Type, Provider string }
		if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.Provider != "ollama" {
			t.Errorf("stream-json %s says provider %q, want ollama (%v): %s", ev.Type, ev.Provider, err, l)
		}
	}
}

// -p refuses text that calls a command that does not exist, as the TUI
// says "unknown command" for it; it sent it to the model as a prompt.
// Text not of a command's shape, or after a leading space, goes as typed.
func TestPrintRefusesAnUnknownCommand(t *testing.T) {
	isolate(t)
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agent", "commands")
	writeText(t, filepath.Join(user, "review.md"), "Review PR #$1.\n")
	fake := anthropictest.NewServer(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	db := filepath.Join(t.TempDir(), "a.db")
	for _, tt := range []struct {
		name, prompt string
		refused      []string // what stderr's one line says; nil: sent
		sent         string   // what the model got
	}{
		{"unknown", "/nosuchcmd x", []string{"unknown command /nosuchcmd: no custom command has that name", `start it with a space: -p " /nosuchcmd ..."`}, ""},
		{"a typo", "/reviw 42", []string{"unknown command /reviw: did you mean /review?"}, ""},
		{"alone", "/nosuchcmd", []string{"unknown command /nosuchcmd"}, ""},
		// The TUI's own commands: it said "no custom command has that
		// name", as if /help did not exist anywhere.
		{"the TUI's /help", "/help", []string{"/help is a command of the interactive UI", `-p " /help ..."`}, ""},
		{"the TUI's /tools", "/tools mem", []string{"/tools is a command of the interactive UI", "use agent tools;"}, ""},
		{"the TUI's /resume", "/resume", []string{"/resume is a command of the interactive UI", "--resume ID"}, ""},
		{"known", "/review 42", nil, "Review PR #42."},
		{"a path", "/etc/hosts is what?", nil, "/etc/hosts is what?"},
		{"after a space", " /nosuchcmd x", nil, "/nosuchcmd x"},
		// A leading space sends a command's call as typed too: it ran
		// the custom command (the model got "Review PR #42.").
		{"a command after a space", " /review 42", nil, "/review 42"},
		{"a server's prompt", "/srv:hello", nil, "/srv:hello"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Done."}))
			before := len(fake.Requests())
			res := runAgent(t, env, "--base-url", fake.URL, "--db", db, "-p", tt.prompt)
			reqs := fake.Requests()[before:]
			if tt.refused != nil {
				if res.code != 2 || len(reqs) != 0 || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
					t.Fatalf("exit %d, %d requests, stderr %q: want exit 2, nothing sent, one line", res.code, len(reqs), res.stderr)
				}
				for _, w := range tt.refused {
					if !strings.Contains(res.stderr, w) {
						t.Errorf("stderr %q does not say %q", res.stderr, w)
					}
				}
				return
			}
			if res.code != 0 || len(reqs) != 1 {
				t.Fatalf("exit %d, %d requests: %s", res.code, len(reqs), res.stderr)
			}
			m := reqs[0].Messages()
			if got := string(m[len(m)-1]); !strings.Contains(got, tt.sent) {
				t.Errorf("the model got %s, want %q", got, tt.sent)
			}
		})
	}
}
