package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/tui"
)

// userHooks writes the user's config with hooks (Claude Code's format).
func userHooks(t *testing.T, hooks string) {
	t.Helper()
	dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agent")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"hooks": `+hooks+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
}

// hookInput reads what a hook wrote of its stdin (one JSON object a line).
func hookInput(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("hook stdin %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func weatherFake(t *testing.T) (*anthropictest.Server, map[string]string) {
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "tt__get_weather", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "Done."},
	))
	return fake, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
}

// lastUser is the text of the last message of a request (the tool result
// or the user's turn), as sent.
func lastUser(r *anthropictest.Request) string {
	m := r.Messages()
	return string(m[len(m)-1])
}

// #30: a PreToolUse hook that exits 2 blocks the call; the model reads its
// stderr as the tool's result; the tool never runs. The hook read the
// call on stdin, by its SERVER__TOOL name, in the session's directory.
func TestHookPreToolUseBlocks(t *testing.T) {
	wd := isolate(t)
	userHooks(t, `{"PreToolUse": [{"matcher": "tt__get_weather", "hooks": [
		{"type": "command", "command": "cat >> pre.jsonl; echo 'weather lookups are off today' >&2; exit 2"}]}]}`)
	fake, env := weatherFake(t)
	res := runAgent(t, env, "-p", "weather?", "--base-url", fake.URL, "--mcp-config", testMCPConfig(t), "--mcp", "tt", "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	out := decodePrint(t, res.stdout)
	if len(out.ToolCalls) != 1 || !out.ToolCalls[0].IsError {
		t.Errorf("tool calls %+v", out.ToolCalls)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := lastUser(reqs[1]); !strings.Contains(got, "weather lookups are off today") || !strings.Contains(got, `"is_error":true`) || strings.Contains(got, "21°C") {
		t.Errorf("the model read %s", got)
	}
	in := hookInput(t, filepath.Join(wd, "pre.jsonl"))
	if len(in) != 1 || in[0]["hook_event_name"] != "PreToolUse" || in[0]["tool_name"] != "tt__get_weather" ||
		in[0]["session_id"] != out.SessionID || in[0]["cwd"] != wd || in[0]["tool_use_id"] == "" || in[0]["permission_mode"] != "default" {
		t.Errorf("hook stdin %v", in)
	}
	if ti, _ := in[0]["tool_input"].(map[string]any); ti["city"] != "Berlin" {
		t.Errorf("tool_input %v", in[0]["tool_input"])
	}
}

// A JSON permissionDecision "deny" refuses with its reason; a hook that
// matches nothing changes nothing.
func TestHookPreToolUseJSONDeny(t *testing.T) {
	isolate(t)
	userHooks(t, `{"PreToolUse": [
		{"matcher": "tt__.*", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"Berlin is out of scope\"}}'"}]},
		{"matcher": "other__tool", "hooks": [{"type": "command", "command": "exit 2"}]}]}`)
	fake, env := weatherFake(t)
	res := runAgent(t, env, "-p", "weather?", "--base-url", fake.URL, "--mcp-config", testMCPConfig(t), "--mcp", "tt", "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	reqs := fake.Requests()
	if got := lastUser(reqs[len(reqs)-1]); !strings.Contains(got, "Berlin is out of scope") || strings.Contains(got, "21°C") {
		t.Errorf("the model read %s", got)
	}
}

// PostToolUse reads the call and its result; its additionalContext and a
// blocking reason reach the model with the result. A hanging hook is
// stopped at its timeout and the turn goes on, saying so.
func TestHookPostToolUseAndTimeout(t *testing.T) {
	wd := isolate(t)
	userHooks(t, `{"PostToolUse": [{"matcher": "tt__get_weather", "hooks": [
		{"type": "command", "command": "cat >> post.jsonl; echo '{\"decision\": \"block\", \"reason\": \"say it in Fahrenheit\", \"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"units: imperial\"}}'"},
		{"type": "command", "command": "sleep 300", "timeout": 0.5}]}]}`)
	fake, env := weatherFake(t)
	res := runAgent(t, env, "-p", "weather?", "--base-url", fake.URL, "--mcp-config", testMCPConfig(t), "--mcp", "tt", "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	out := decodePrint(t, res.stdout)
	reqs := fake.Requests()
	got := lastUser(reqs[len(reqs)-1])
	for _, want := range []string{"21°C", "PostToolUse hook: say it in Fahrenheit", "units: imperial"} {
		if !strings.Contains(got, want) {
			t.Errorf("the model read %s, without %q", got, want)
		}
	}
	in := hookInput(t, filepath.Join(wd, "post.jsonl"))
	resp, _ := json.Marshal(in[0]["tool_response"])
	if in[0]["hook_event_name"] != "PostToolUse" || in[0]["tool_name"] != "tt__get_weather" || !strings.Contains(string(resp), "21°C") {
		t.Errorf("hook stdin %v", in[0])
	}
	if !strings.Contains(strings.Join(out.Warnings, "\n"), `"sleep 300" timed out after 500ms`) || !strings.Contains(res.stderr, "timed out") {
		t.Errorf("warnings %q, stderr %s", out.Warnings, res.stderr)
	}
}

// SessionStart and UserPromptSubmit: their stdout reaches the first
// request beside the prompt; their stdin has source and prompt.
func TestHookPromptContext(t *testing.T) {
	wd := isolate(t)
	userHooks(t, `{
		"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "cat >> start.jsonl; echo 'sprint goal: ship hooks'"}]},
		                 {"matcher": "resume", "hooks": [{"type": "command", "command": "echo resumed >> resumed.txt"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >> prompt.jsonl; echo 'branch: main'"}]}]}`)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "ok"}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	res := runAgent(t, env, "-p", "what now?", "--base-url", fake.URL, "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	first := lastUser(fake.Requests()[0])
	for _, want := range []string{"what now?", "SessionStart hook context:\\nsprint goal: ship hooks", "UserPromptSubmit hook context:\\nbranch: main"} {
		if !strings.Contains(first, want) {
			t.Errorf("first request's user message %s, without %q", first, want)
		}
	}
	start := hookInput(t, filepath.Join(wd, "start.jsonl"))
	if start[0]["hook_event_name"] != "SessionStart" || start[0]["source"] != "startup" || start[0]["model"] == "" {
		t.Errorf("SessionStart stdin %v", start[0])
	}
	prompt := hookInput(t, filepath.Join(wd, "prompt.jsonl"))
	if prompt[0]["hook_event_name"] != "UserPromptSubmit" || prompt[0]["prompt"] != "what now?" {
		t.Errorf("UserPromptSubmit stdin %v", prompt[0])
	}
	if _, err := os.Stat(filepath.Join(wd, "resumed.txt")); err == nil {
		t.Error("the resume hook ran at startup")
	}
}

// A UserPromptSubmit hook that exits 2 refuses the prompt: nothing is
// sent, the user reads the hook's stderr, the exit code says it failed.
func TestHookPromptBlocked(t *testing.T) {
	isolate(t)
	userHooks(t, `{"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'no secrets in prompts' >&2; exit 2"}]}]}`)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "ok"}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	res := runAgent(t, env, "-p", "my password is hunter2", "--base-url", fake.URL, "--output-format", "json")
	if res.code != 1 || len(fake.Requests()) != 0 {
		t.Fatalf("exit %d, %d requests: %s", res.code, len(fake.Requests()), res.stderr)
	}
	out := decodePrint(t, res.stdout)
	if !out.IsError || !strings.Contains(out.Error, "no secrets in prompts") {
		t.Errorf("result %+v", out)
	}
}

// A Stop hook that exits 2 makes the model go on with its stderr; the
// second time it is told stop_hook_active and lets the turn end.
func TestHookStopContinues(t *testing.T) {
	wd := isolate(t)
	userHooks(t, `{"Stop": [{"hooks": [{"type": "command", "command": "in=$(cat); echo \"$in\" >> stop.jsonl; case \"$in\" in *'\"stop_hook_active\":true'*) exit 0;; esac; echo 'run the tests first' >&2; exit 2"}]}]}`)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "All done."}, anthropictest.Turn{Text: "Tests pass."}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	res := runAgent(t, env, "-p", "fix it", "--base-url", fake.URL, "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	out := decodePrint(t, res.stdout)
	reqs := fake.Requests()
	if len(reqs) != 2 || out.Result != "Tests pass." || out.NumTurns != 2 {
		t.Fatalf("%d requests, result %q", len(reqs), out.Result)
	}
	if got := lastUser(reqs[1]); !strings.Contains(got, "run the tests first") {
		t.Errorf("the model read %s", got)
	}
	in := hookInput(t, filepath.Join(wd, "stop.jsonl"))
	if len(in) != 2 || in[0]["stop_hook_active"] != false || in[1]["stop_hook_active"] != true || in[0]["last_assistant_message"] != "All done." {
		t.Errorf("Stop stdin %v", in)
	}
}

// PreCompact runs before `agent sessions compact` with trigger manual;
// exit 2 stops the compaction, saying why.
func TestHookPreCompact(t *testing.T) {
	wd := isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "hello"}, anthropictest.Turn{Text: "A summary."}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	db := filepath.Join(t.TempDir(), "agent.db")
	res := runAgent(t, env, "-p", "hi", "--base-url", fake.URL, "--db", db, "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	id := decodePrint(t, res.stdout).SessionID
	userHooks(t, `{"PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "cat >> compact.jsonl; echo 'not before the release' >&2; exit 2"}]}]}`)
	res = runAgent(t, env, "sessions", "compact", id, "--base-url", fake.URL, "--db", db)
	if res.code == 0 || !strings.Contains(res.stderr, "not before the release") || len(fake.Requests()) != 1 {
		t.Fatalf("exit %d, %d requests: %s", res.code, len(fake.Requests()), res.stderr)
	}
	in := hookInput(t, filepath.Join(wd, "compact.jsonl"))
	if in[0]["hook_event_name"] != "PreCompact" || in[0]["trigger"] != "manual" || in[0]["session_id"] != id {
		t.Errorf("PreCompact stdin %v", in[0])
	}
	userHooks(t, `{"PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "true"}]}],
		"SessionStart": [{"hooks": [{"type": "command", "command": "cat >> start.jsonl"}]}]}`)
	if res = runAgent(t, env, "sessions", "compact", id, "--base-url", fake.URL, "--db", db); res.code != 0 || len(fake.Requests()) != 2 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	// SessionStart runs after the compaction (source compact), not for
	// the maintenance command's opening of the session.
	if in := hookInput(t, filepath.Join(wd, "start.jsonl")); len(in) != 1 || in[0]["source"] != "compact" {
		t.Errorf("SessionStart stdin %v", in)
	}
}

// A cloned repository's hooks never run until the directory is trusted;
// then they run besides the user's.
func TestHookUntrustedProject(t *testing.T) {
	wd := isolate(t)
	if err := os.MkdirAll(filepath.Join(wd, ".agent"), 0o700); err != nil {
		t.Fatal(err)
	}
	proj := `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch project-hook-ran"}]}]}}`
	if err := os.WriteFile(filepath.Join(wd, ".agent", "config.json"), []byte(proj), 0o600); err != nil {
		t.Fatal(err)
	}
	userHooks(t, `{"SessionStart": [{"hooks": [{"type": "command", "command": "touch user-hook-ran"}]}]}`)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "ok"}, anthropictest.Turn{Text: "ok"}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	res := runAgent(t, env, "-p", "hi", "--base-url", fake.URL)
	if res.code != 0 || !strings.Contains(res.stderr, "not trusted") {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(wd, "project-hook-ran")); err == nil {
		t.Fatal("an untrusted project's hook ran")
	}
	if _, err := os.Stat(filepath.Join(wd, "user-hook-ran")); err != nil {
		t.Fatal("the user's hook did not run")
	}
	if res = runAgent(t, env, "trust"); res.code != 0 {
		t.Fatalf("trust: exit %d: %s", res.code, res.stderr)
	}
	if res = runAgent(t, env, "-p", "hi", "--base-url", fake.URL); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(wd, "project-hook-ran")); err != nil {
		t.Error("the trusted project's hook did not run")
	}
}

// A hook's "allow" skips the approval require_approval asks for (with
// nobody to ask in -p, the call would be refused); its "ask" makes even a
// call no rule names wait for approval, which -p refuses without --yes.
func TestHookPreToolUseAllowAndAsk(t *testing.T) {
	for _, c := range []struct {
		decision, config string
		ran              bool
	}{
		{"allow", `"require_approval": ["tt__get_weather"],`, true},
		{"ask", ``, false},
	} {
		t.Run(c.decision, func(t *testing.T) {
			isolate(t)
			userHooks(t, `{"PreToolUse": [{"hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"`+c.decision+`\", \"permissionDecisionReason\": \"checked by policy.sh\"}}'"}]}]}`)
			cfg := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agent", "config.json")
			b, _ := os.ReadFile(cfg)
			if err := os.WriteFile(cfg, []byte("{"+c.config+string(b[1:])), 0o600); err != nil {
				t.Fatal(err)
			}
			fake, env := weatherFake(t)
			res := runAgent(t, env, "-p", "weather?", "--base-url", fake.URL, "--mcp-config", testMCPConfig(t), "--mcp", "tt", "--output-format", "json")
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			reqs := fake.Requests()
			if got := lastUser(reqs[len(reqs)-1]); strings.Contains(got, "21°C") != c.ran {
				t.Errorf("ran = %v, want %v: the model read %s", !c.ran, c.ran, got)
			}
		})
	}
}

// A bad matcher is refused at start, naming the file; nothing runs.
func TestHookBadConfig(t *testing.T) {
	isolate(t)
	userHooks(t, `{"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "true"}]}]}`)
	res := runAgent(t, nil, "-p", "hi")
	if res.code != 2 || !strings.Contains(res.stderr, "config.json: hooks.PreToolUse[0]: matcher \"(\" is not a regular expression") {
		t.Errorf("exit %d: %s", res.code, res.stderr)
	}
}

// #30 part 6: stream-json's final event has total_cost_usd, duration_ms
// and num_turns; over a turn of two requests the cost is both requests'
// usage at Claude Sonnet 4.5's prices ($3 in, $15 out, $0.30 cache read,
// $3.75 cache write per million tokens), the same as the usage events say.
func TestStreamJSONCostOverTurns(t *testing.T) {
	isolate(t)
	fake, env := weatherFake(t)
	res := runAgent(t, env, "-p", "weather?", "--base-url", fake.URL, "--model", "claude-sonnet-4-5", "--mcp-config", testMCPConfig(t), "--mcp", "tt",
		"--output-format", "stream-json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	want := 0.0
	for _, l := range lines[:len(lines)-1] {
		var ev struct {
			Type  string `json:"type"`
			Usage struct {
				In    int `json:"input_tokens"`
				Out   int `json:"output_tokens"`
				Read  int `json:"cache_read_input_tokens"`
				Write int `json:"cache_creation_input_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "usage" {
			u := ev.Usage
			want += (float64(u.In)*3 + float64(u.Out)*15 + float64(u.Read)*0.3 + float64(u.Write)*3.75) / 1e6
		}
	}
	var last struct {
		Type         string   `json:"type"`
		TotalCostUSD *float64 `json:"total_cost_usd"`
		DurationMS   *int64   `json:"duration_ms"`
		NumTurns     int      `json:"num_turns"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Type != "result" || last.TotalCostUSD == nil || want == 0 || *last.TotalCostUSD < want-1e-9 || *last.TotalCostUSD > want+1e-9 ||
		last.DurationMS == nil || last.NumTurns != 2 {
		t.Errorf("final event %s, want total_cost_usd %v", lines[len(lines)-1], want)
	}
}

// "continue": false from a hook ends the turn after the step in progress
// (the call's result is kept, no further request), its stopReason told.
func TestHookContinueFalse(t *testing.T) {
	isolate(t)
	userHooks(t, `{"PostToolUse": [{"hooks": [{"type": "command", "command": "echo '{\"continue\": false, \"stopReason\": \"daily quota reached\"}'"}]}]}`)
	fake, env := weatherFake(t)
	res := runAgent(t, env, "-p", "weather?", "--base-url", fake.URL, "--mcp-config", testMCPConfig(t), "--mcp", "tt", "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	out := decodePrint(t, res.stdout)
	if len(fake.Requests()) != 1 || len(out.ToolCalls) != 1 || out.ToolCalls[0].IsError {
		t.Errorf("%d requests, calls %+v", len(fake.Requests()), out.ToolCalls)
	}
	if !strings.Contains(strings.Join(out.Warnings, "\n"), "a hook ended the turn: daily quota reached") {
		t.Errorf("warnings %q", out.Warnings)
	}
}

// A hook's systemMessage is news for the user, not a warning: the turn
// says it as a notice naming the hook (stream-json's "notice", which the
// TUI shows without the warning mark); -p still prints it on stderr and
// keeps it in the result's warnings. It was a "warning" event.
func TestHookSystemMessageIsANotice(t *testing.T) {
	for _, tt := range []struct{ event, want string }{
		{"Stop", "Stop hook: tests passed"},
		{"UserPromptSubmit", "UserPromptSubmit hook: tests passed"},
	} {
		t.Run(tt.event, func(t *testing.T) {
			isolate(t)
			userHooks(t, `{"`+tt.event+`": [{"hooks": [{"type": "command", "command": "cat >/dev/null; echo '{\"systemMessage\": \"tests passed\"}'"}]}]}`)
			fake := anthropictest.NewServer(t)
			fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "All done."}))
			env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
			res := runAgent(t, env, "-p", "fix it", "--base-url", fake.URL, "--output-format", "stream-json")
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			var notice, warning bool
			lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
			for _, l := range lines {
				var ev struct{ Type, Text string }
				if err := json.Unmarshal([]byte(l), &ev); err != nil {
					t.Fatalf("%v: %s", err, l)
				}
				notice = notice || ev.Type == "notice" && ev.Text == tt.want
				warning = warning || ev.Type == "warning" && strings.Contains(ev.Text, "tests passed")
			}
			if !notice || warning {
				t.Errorf("stream-json has the notice %v, a warning %v:\n%s", notice, warning, res.stdout)
			}
			var result struct{ Warnings []string }
			_ = json.Unmarshal([]byte(lines[len(lines)-1]), &result)
			if !slices.Contains(result.Warnings, tt.want) || !strings.Contains(res.stderr, "agent: "+tt.want) {
				t.Errorf("result warnings %q, stderr %q: want %q in both", result.Warnings, res.stderr, tt.want)
			}
		})
	}
}

// A SessionStart hook's systemMessage is news naming the hook, as the
// other hooks' is since a1311c4: it stayed with the start-up warnings, so
// the TUI marked "SessionStart hook: tests passed" as a warning. -p prints
// it on stderr without "warning:" and keeps it in the result's warnings;
// the TUI gets it as a notice at start and after /clear.
func TestSessionStartSystemMessageIsNews(t *testing.T) {
	const want = "SessionStart hook: tests passed"
	isolate(t)
	userHooks(t, `{"SessionStart": [{"hooks": [{"type": "command", "command": "cat >/dev/null; echo '{\"systemMessage\": \"tests passed\"}'"}]}]}`)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "All done."}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	res := runAgent(t, env, "-p", "fix it", "--base-url", fake.URL, "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var result struct{ Warnings []string }
	if err := json.Unmarshal([]byte(res.stdout), &result); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(result.Warnings, want) || !strings.Contains(res.stderr, "agent: "+want) || strings.Contains(res.stderr, "warning: "+want) {
		t.Errorf("result warnings %q, stderr %q: want %q in both, not as a warning", result.Warnings, res.stderr, want)
	}

	b := newTestTUIBackendWith(t, app.Options{Interactive: true}, env, "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"))
	for _, step := range []struct {
		name string
		do   func() error
	}{
		{"at start", func() error { return nil }},
		{"after /clear", func() error { return b.New(t.Context()) }},
	} {
		if err := step.do(); err != nil {
			t.Fatal(err)
		}
		notes := b.Refresh()
		if !slices.Contains(notes, tui.Note{Text: want}) {
			t.Errorf("%s: notes %+v, want %q as news", step.name, notes, want)
		}
	}
}
