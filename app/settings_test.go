package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/config/agents"
	"github.com/agent-dev/agent/store"
)

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// One order: defaults, user config, project config, environment, flags;
// each layer wins over the ones before for what it gives.
func TestLoadLayers(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	work := filepath.Join(dir, "work")
	writeFile(t, user, `{"model": "from-user", "search": "client", "system": "user prompt", "max_steps": 7, "base_url": "http://user.example"}`)
	writeFile(t, filepath.Join(work, ".agent", "config.json"), `{"search": "off", "system": "project prompt", "base_url": "http://evil.example"}`)
	env := map[string]string{"AGENT_MODEL": "from-env"}
	getenv := func(k string) string { return env[k] }

	s, err := Load(Flags{ConfigPath: user, Workdir: work, Trust: true}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if s.Provider != "anthropic" || s.SearchAlgo != "bm25" {
		t.Errorf("defaults lost: %+v", s.Config)
	}
	if s.Model != "from-env" || s.Search != "off" || s.System != "project prompt" || s.MaxSteps != 7 {
		t.Errorf("layers: model %q search %q system %q steps %d", s.Model, s.Search, s.System, s.MaxSteps)
	}
	// A project cannot redirect the API key.
	if s.BaseURL != "http://user.example" || !warned(s, "base_url") || !warned(s, "sets the system prompt") {
		t.Errorf("base_url %q, warnings %q", s.BaseURL, s.Warnings)
	}
	// Flags win; --max-steps 0 is given, not "unset".
	f := Flags{ConfigPath: user, Workdir: work, Trust: true, Changed: map[string]bool{"max-steps": true}}
	f.Model, f.Search = "from-flag", "native"
	if _, err := Load(f, getenv); err == nil || !strings.Contains(err.Error(), "max steps") {
		t.Errorf("--max-steps 0: %v", err)
	}
	f.MaxSteps = 3
	s, err = Load(f, getenv)
	if err != nil || s.Model != "from-flag" || s.Search != "native" || s.MaxSteps != 3 {
		t.Errorf("flags: %+v %v", s.Config, err)
	}
	// max_tokens unset stays 0: each model's own default, not 4096.
	if s.MaxTokens != 0 {
		t.Errorf("max tokens default %d, want 0", s.MaxTokens)
	}
	var ue *UsageError
	if _, err := Load(Flags{Workdir: work, Defer: "sometimes"}, getenv); !errors.As(err, &ue) {
		t.Errorf("bad --defer: %v", err)
	}
}

// Telemetry is the user's to turn on, through their config or the
// environment: a project's keys are ignored with a warning, and a bad
// AGENT_ENABLE_TELEMETRY is a usage error naming it.
func TestTelemetrySettings(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	work := filepath.Join(dir, "work")
	writeFile(t, user, `{"telemetry_log_content": false}`)
	writeFile(t, filepath.Join(work, ".agent", "config.json"), `{"telemetry": true, "telemetry_log_content": true}`)
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	s, err := Load(Flags{ConfigPath: user, Workdir: work, Trust: true}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if s.Telemetry != nil || s.TelemetryLogContent == nil || *s.TelemetryLogContent || !warned(s, "telemetry in") || !warned(s, "telemetry_log_content in") {
		t.Errorf("telemetry %v, log content %v, warnings %q", s.Telemetry, s.TelemetryLogContent, s.Warnings)
	}
	env["AGENT_ENABLE_TELEMETRY"] = "1"
	if s, err = Load(Flags{ConfigPath: user, Workdir: work}, getenv); err != nil || s.Telemetry == nil || !*s.Telemetry {
		t.Errorf("AGENT_ENABLE_TELEMETRY=1: %v, %v", s.Telemetry, err)
	}
	env["AGENT_ENABLE_TELEMETRY"] = "on"
	var ue *UsageError
	if _, err := Load(Flags{ConfigPath: user, Workdir: work}, getenv); !errors.As(err, &ue) || !strings.Contains(err.Error(), "AGENT_ENABLE_TELEMETRY") {
		t.Errorf("AGENT_ENABLE_TELEMETRY=on: %v", err)
	}
}

// Exit codes and hints come from error kinds, in one place.
func TestExitCodesAndHints(t *testing.T) {
	if ExitCode(nil) != 0 || ExitCode(Usagef("x")) != 2 || ExitCode(errors.New("x")) != 1 {
		t.Error("exit codes")
	}
	a := &App{}
	refused := fmt.Errorf("ollama: send request: %w", syscall.ECONNREFUSED)
	if got := a.Explain(refused); !strings.Contains(got.Error(), "point --base-url at it") || !errors.Is(got, syscall.ECONNREFUSED) {
		t.Errorf("connection refused: %v", got)
	}
	limited := &agent.APIError{Provider: "anthropic", Status: 429}
	if got := a.Explain(limited); got != limited || agent.KindOf(got) != agent.ErrRateLimited {
		t.Errorf("rate limit: %v (%v)", got, agent.KindOf(got))
	}
	cancelled := agent.WithKind(agent.ErrCancelled, context.Canceled)
	if !errors.Is(a.Explain(cancelled), agent.ErrCancelled) {
		t.Error("the kind is lost")
	}
}

// The reducer folds a turn into the -p result.
func TestReducer(t *testing.T) {
	r := &Reducer{searchIdx: map[string]int{}, seenSource: map[string]bool{}}
	r.res.Usage.ServerToolUse = map[string]int{}
	var out strings.Builder
	for _, ev := range []agent.Event{
		{Type: agent.EventTextDelta, Text: "Let me look."},
		{Type: agent.EventMessage, Message: &agent.Message{Role: agent.RoleAssistant}},
		{Type: agent.EventSearchStarted, Search: &agent.SearchEvent{ID: "s1", Where: "client", Query: "weather"}},
		{Type: agent.EventSearchFinished, Search: &agent.SearchEvent{ID: "s1", Where: "client", Tools: []string{"get_weather"}}},
		{Type: agent.EventToolStarted, Tool: &agent.ToolEvent{ID: "c1", Name: "get_weather"}},
		{Type: agent.EventToolFinished, Tool: &agent.ToolEvent{ID: "c1", Name: "get_weather"}},
		{Type: agent.EventTextDelta, Text: "Sunny."},
		{Type: agent.EventUsage, Usage: &agent.Usage{InputTokens: 10, OutputTokens: 2}, StopReason: agent.StopEnd},
		{Type: agent.EventError, Err: agent.WithKind(agent.ErrBudgetSpent, errors.New("spent"))},
	} {
		out.WriteString(r.Add(ev))
	}
	res := r.res
	if out.String() != "Let me look.\n\nSunny." || r.last.String() != "Sunny." {
		t.Errorf("text %q last %q", out.String(), r.last.String())
	}
	if len(res.Searches) != 1 || res.Searches[0].Tools[0] != "get_weather" || len(res.ToolCalls) != 1 || res.NumRequests != 1 || res.StopReason != agent.StopEnd {
		t.Errorf("result %+v", res)
	}
	if !errors.Is(r.Err(), agent.ErrBudgetSpent) {
		t.Errorf("err %v", r.Err())
	}
}

// What a session stores and a resume restores follows the declaration:
// every key tagged stored comes back where no flag was given, and a flag
// wins over it.
func TestStoredKeysRoundTrip(t *testing.T) {
	s := Settings{Config: config.Defaults()}
	s.FallbackModel, s.System, s.MaxTokens, s.SearchAlgo, s.Search = "fb", "sys", 123, "regex", "client"
	s.Theme = "dracula" // not stored
	s.MCP, s.Defer, s.Agent = []string{"github"}, "auto", "reviewer"
	st := s.stored(nil)
	if st.FallbackModel != "fb" || st.System != "sys" || st.MaxTokens != 123 || st.SearchAlgo != "regex" || st.Search != agent.SearchClient || st.Agent != "reviewer" {
		t.Fatalf("stored %+v", st)
	}
	if st.Value("theme") != nil {
		t.Errorf("theme is not declared stored, yet stored: %s", st.Value("theme"))
	}
	r := Settings{Config: config.Defaults(), Flags: Flags{Changed: map[string]bool{"system": true}}}
	r.Flags.System = "flag prompt"
	r.System = "flag prompt"
	r.restore(store.SessionMeta{Provider: "anthropic", Model: "m", Settings: st})
	if r.FallbackModel != "fb" || r.MaxTokens != 123 || r.SearchAlgo != "regex" || r.Search != "client" || r.Model != "m" {
		t.Errorf("restored %+v", r.Config)
	}
	if r.System != "flag prompt" || r.Theme != "auto" {
		t.Errorf("a flag or an unstored key was overwritten: system %q theme %q", r.System, r.Theme)
	}
	if r.Defer != "auto" || len(r.MCP) != 1 {
		t.Errorf("run options: defer %q mcp %v", r.Defer, r.MCP)
	}
}

// A profile sets the keys declared profile, under the flags given.
func TestProfileKeysUnderFlags(t *testing.T) {
	s := Settings{Config: config.Defaults()}
	s.ProviderTools, s.RequireApproval = []string{"web_search"}, []string{"a"}
	var p agents.Profile
	p.Name, p.Model, p.FallbackModel, p.Effort, p.MaxTokens, p.Theme = "x", "pm", "pfb", "high", 99, "dracula"
	p.ProviderTools, p.RequireApproval = []string{"code_execution"}, []string{"b"}
	s.applyProfile(p, map[string]bool{"effort": true})
	if s.Model != "pm" || s.FallbackModel != "pfb" || s.MaxTokens != 99 || s.Theme != "dracula" || s.Agent != "x" {
		t.Errorf("profile keys: %+v", s.Config)
	}
	if s.Effort != "" {
		t.Errorf("--effort given, yet the profile's applied: %q", s.Effort)
	}
	if strings.Join(s.RequireApproval, ",") != "a,b" || strings.Join(s.ProviderTools, ",") != "code_execution" {
		t.Errorf("approvals %v, provider tools %v", s.RequireApproval, s.ProviderTools)
	}
}

// A key declared in config reaches Settings from the file, takes its
// default otherwise, and a negative value is refused naming the key.
func TestMaxToolResultBytes(t *testing.T) {
	dir := t.TempDir()
	getenv := func(string) string { return "" }
	s, err := Load(Flags{ConfigPath: filepath.Join(dir, "none.json"), Workdir: dir}, getenv)
	if err == nil || s.MaxToolResultBytes != 4<<20 {
		// The named file is missing: an error, with the defaults kept.
		t.Errorf("default %d (%v)", s.MaxToolResultBytes, err)
	}
	cfg := filepath.Join(dir, "c.json")
	writeFile(t, cfg, `{"max_tool_result_bytes": 1000}`)
	if s, err = Load(Flags{ConfigPath: cfg, Workdir: dir}, getenv); err != nil || s.MaxToolResultBytes != 1000 {
		t.Errorf("from the file: %d %v", s.MaxToolResultBytes, err)
	}
	writeFile(t, cfg, `{"max_tool_result_bytes": -1}`)
	if _, err = Load(Flags{ConfigPath: cfg, Workdir: dir}, getenv); err == nil || !strings.Contains(err.Error(), `c.json:1:2: "max_tool_result_bytes" must be positive, got -1`) {
		t.Errorf("negative: %v", err)
	}
}

// #27: --base-url foo is a usage error naming the expected form.
func TestBaseURLMustBeAURL(t *testing.T) {
	for _, c := range []struct {
		url string
		ok  bool
	}{{"foo", false}, {"api.example.com/v1", false}, {"ftp://x/y", false}, {"https://api.example.com/v1", true}, {"http://127.0.0.1:11434/v1", true}} {
		s := Settings{Config: config.Defaults()}
		s.BaseURL = c.url
		err := s.Validate()
		var ue *UsageError
		if c.ok != (err == nil) || (err != nil && (!errors.As(err, &ue) || !strings.Contains(err.Error(), "give the API's address with its scheme"))) {
			t.Errorf("%q: %v", c.url, err)
		}
	}
}
