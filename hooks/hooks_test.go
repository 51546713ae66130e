package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMatcher(t *testing.T) {
	for _, c := range []struct {
		matcher string
		name    string
		want    bool
	}{
		{"", "tt__get_weather", true},
		{"*", "anything", true},
		{"tt__get_weather", "tt__get_weather", true},
		{"tt__get_weather", "tt__get_weather_now", false}, // a plain name is exact
		{"Edit|Write", "Write", true},
		{"Edit|Write", "NotebookWrite", false},
		{"tt__.*", "tt__get_weather", true},
		{"^tt__", "xtt__a", false},
		{"weather", "tt__get_weather", false}, // plain: exact, not a substring
		{"weat.er", "tt__get_weather", true},  // a regex is searched
		{"startup", "resume", false},
	} {
		m, err := compileMatcher(c.matcher)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.match(c.name); got != c.want {
			t.Errorf("matcher %q on %q = %v, want %v", c.matcher, c.name, got, c.want)
		}
	}
}

func parse(t *testing.T, s string) Config {
	t.Helper()
	var c Config
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCompile(t *testing.T) {
	for _, c := range []struct {
		name, json string
		warn, err  string
	}{
		{"ok", `{"PreToolUse":[{"matcher":"tt__.*","hooks":[{"type":"command","command":"true","timeout":5}]}]}`, "", ""},
		{"unknown event", `{"Notification":[{"hooks":[{"type":"command","command":"true"}]}]}`, "hooks.Notification is ignored", ""},
		{"other type", `{"Stop":[{"hooks":[{"type":"prompt","prompt":"x"}]}]}`, `type "prompt" is not supported`, ""},
		{"unknown field", `{"Stop":[{"hooks":[{"type":"command","command":"true","async":true}]}]}`, "async ignored", ""},
		{"bad regex", `{"PreToolUse":[{"matcher":"(","hooks":[{"type":"command","command":"true"}]}]}`, "", `hooks.PreToolUse[0]: matcher "(" is not a regular expression`},
		{"empty command", `{"Stop":[{"hooks":[{"type":"command","command":" "}]}]}`, "", `hooks.Stop[0].hooks[0]: "command" is empty`},
		{"negative timeout", `{"Stop":[{"hooks":[{"type":"command","command":"true","timeout":-1}]}]}`, "", "must be a positive number of seconds"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, warns, err := Compile(parse(t, c.json))
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("err = %v, want %q", err, c.err)
			}
			w := strings.Join(warns, "\n")
			if c.warn == "" && w != "" || !strings.Contains(w, c.warn) {
				t.Errorf("warnings = %q, want %q", w, c.warn)
			}
		})
	}
}

func runner(t *testing.T, event Event, matcher string, cmds ...string) *Runner {
	t.Helper()
	var hs []Command
	for _, c := range cmds {
		hs = append(hs, Command{Type: "command", Command: c})
	}
	h, _, err := Compile(Config{string(event): {{Matcher: matcher, Hooks: hs}}})
	if err != nil {
		t.Fatal(err)
	}
	return &Runner{Hooks: h, Dir: t.TempDir()}
}

// Each way a hook answers, read as Claude Code documents it.
func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		name  string
		event Event
		cmds  []string
		check func(o Outcome) bool
	}{
		{"exit 2 blocks with stderr", PreToolUse, []string{"echo 'no writes here' >&2; exit 2"},
			func(o Outcome) bool { return o.Block && o.Reason == "no writes here" }},
		{"exit 1 is a note, not a block", PreToolUse, []string{"echo boom >&2; exit 1"},
			func(o Outcome) bool {
				return !o.Block && len(o.Notes) == 1 && strings.Contains(o.Notes[0], "exit 1): boom")
			}},
		{"plain stdout is context for UserPromptSubmit", UserPromptSubmit, []string{"echo 'branch: main'"},
			func(o Outcome) bool { return slices.Equal(o.Context, []string{"branch: main"}) }},
		{"plain stdout is not context for PreToolUse", PreToolUse, []string{"echo hello"},
			func(o Outcome) bool { return len(o.Context) == 0 && o.Decision == "" }},
		{"deny", PreToolUse, []string{`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"prod is read-only"}}'`},
			func(o Outcome) bool { return o.Decision == "deny" && o.DecisionReason == "prod is read-only" }},
		{"deny wins over allow", PreToolUse, []string{
			`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`,
			`echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}'`},
			func(o Outcome) bool { return o.Decision == "deny" && o.DecisionReason == "no" }},
		{"ask wins over allow", PreToolUse, []string{
			`echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}'`,
			`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`},
			func(o Outcome) bool { return o.Decision == "ask" && o.DecisionReason == "sure?" }},
		{"older approve", PreToolUse, []string{`echo '{"decision":"approve","reason":"fine"}'`},
			func(o Outcome) bool { return o.Decision == "allow" }},
		{"older block", PreToolUse, []string{`echo '{"decision":"block","reason":"bad"}'`},
			func(o Outcome) bool { return o.Decision == "deny" && o.DecisionReason == "bad" }},
		{"unknown decision", PreToolUse, []string{`echo '{"hookSpecificOutput":{"permissionDecision":"maybe"}}'`},
			func(o Outcome) bool { return o.Decision == "" && len(o.Notes) == 1 }},
		{"Stop block", Stop, []string{`echo '{"decision":"block","reason":"run the tests first"}'`},
			func(o Outcome) bool { return o.Block && o.Reason == "run the tests first" }},
		{"additionalContext", PostToolUse, []string{`echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"formatted"}}'`},
			func(o Outcome) bool { return slices.Equal(o.Context, []string{"formatted"}) }},
		{"continue false", PostToolUse, []string{`echo '{"continue":false,"stopReason":"quota","systemMessage":"hi"}'`},
			func(o Outcome) bool {
				return o.Halt && o.StopReason == "quota" && slices.Equal(o.Messages, []string{"hi"}) && len(o.Notes) == 0
			}},
		{"JSON ignored on exit 2", PreToolUse, []string{`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; echo why >&2; exit 2`},
			func(o Outcome) bool { return o.Block && o.Decision == "" && o.Reason == "why" }},
		{"identical commands run once", UserPromptSubmit, []string{"echo once", "echo once"},
			func(o Outcome) bool { return slices.Equal(o.Context, []string{"once"}) }},
		{"missing command", PreToolUse, []string{"/nonexistent/hook.sh"},
			func(o Outcome) bool { return !o.Block && len(o.Notes) == 1 && strings.Contains(o.Notes[0], "exit 127") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := runner(t, c.event, "", c.cmds...).Run(t.Context(), c.event, "tt__x", Input{})
			if !c.check(o) {
				t.Errorf("outcome %+v", o)
			}
		})
	}
}

// The hook reads the event's fields on stdin and runs in the session's
// directory with CLAUDE_PROJECT_DIR set.
func TestInput(t *testing.T) {
	r := runner(t, PostToolUse, "tt__.*", `cat > in.json; pwd > pwd.txt; echo "$CLAUDE_PROJECT_DIR" > env.txt`)
	o := r.Run(t.Context(), PostToolUse, "tt__get_weather", Input{SessionID: "s1", ToolName: "tt__get_weather",
		ToolInput: json.RawMessage(`{"city":"Berlin"}`), ToolResponse: json.RawMessage(`{"content":[]}`), ToolUseID: "call_1"})
	if len(o.Notes) > 0 {
		t.Fatal(o.Notes)
	}
	b, err := os.ReadFile(filepath.Join(r.Dir, "in.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in map[string]any
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"session_id": "s1", "cwd": r.Dir, "hook_event_name": "PostToolUse", "tool_name": "tt__get_weather",
		"tool_input": map[string]any{"city": "Berlin"}, "tool_response": map[string]any{"content": []any{}}, "tool_use_id": "call_1"}
	for k, v := range want {
		if got, _ := json.Marshal(in[k]); string(got) != string(must(json.Marshal(v))) {
			t.Errorf("%s = %s, want %v", k, got, v)
		}
	}
	if _, ok := in["prompt"]; ok {
		t.Errorf("PostToolUse input has a prompt: %s", b)
	}
	for _, f := range []string{"pwd.txt", "env.txt"} {
		b, _ := os.ReadFile(filepath.Join(r.Dir, f))
		if got, _ := filepath.EvalSymlinks(strings.TrimSpace(string(b))); got != must(filepath.EvalSymlinks(r.Dir)) {
			t.Errorf("%s = %q, want %q", f, b, r.Dir)
		}
	}
	// A matcher that does not match runs nothing.
	if o := r.Run(t.Context(), PostToolUse, "other__tool", Input{}); len(o.Notes) > 0 {
		t.Error(o.Notes)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Cancelling the turn stops a running hook at once.
func TestCancel(t *testing.T) {
	r := runner(t, Stop, "", "touch started; sleep 300")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan Outcome)
	go func() { done <- r.Run(ctx, Stop, "", Input{}) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(r.Dir, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("hook never started")
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-t.Context().Done():
		}
	}
	cancel()
	o := <-done
	if len(o.Notes) != 1 || !strings.Contains(o.Notes[0], "was stopped: the turn was cancelled") {
		t.Errorf("outcome %+v", o)
	}
}

func TestConcat(t *testing.T) {
	user := parse(t, `{"Stop":[{"hooks":[{"type":"command","command":"a"}]}]}`)
	proj := parse(t, `{"Stop":[{"hooks":[{"type":"command","command":"b"}]}],"PreToolUse":[{"hooks":[{"type":"command","command":"c"}]}]}`)
	got := Concat(user, proj)
	if len(got["Stop"]) != 2 || got["Stop"][0].Hooks[0].Command != "a" || len(got["PreToolUse"]) != 1 || len(user["Stop"]) != 1 {
		t.Errorf("Concat = %+v", got)
	}
}
