package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	mcptools "github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/permission"
	"github.com/agent-dev/agent/tui"
)

// permsMCPConfig is an --mcp-config whose "tt" server is this test binary,
// its get_weather annotated read-only (send_email keeps mcp-go's default:
// destructive).
func permsMCPConfig(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return writeJSON(t, "mcp.json", map[string]any{"mcpServers": map[string]any{
		"tt": map[string]any{"command": exe, "env": map[string]string{"AGENT_TEST_MCP_SERVER": "1", "AGENT_TEST_MCP_READONLY": "1"}},
	}})
}

var (
	weather = mcptools.ToolName("tt", "get_weather")
	email   = mcptools.ToolName("tt", "send_email")
)

// scriptBoth makes the fake call get_weather and send_email in one turn,
// then answer.
func scriptBoth(f *chattest.Server) {
	f.Script(chattest.Calls(chattest.DirectCall("c1", weather, map[string]any{"city": "Berlin"}),
		chattest.DirectCall("c2", email, map[string]any{"to": "a@b.c", "body": "hi"})), chattest.Text("Done."))
}

func permsArgs(t *testing.T, f *chattest.Server, cfg string, extra ...string) []string {
	return append([]string{"--config", cfg, "--mcp-config", permsMCPConfig(t), "--mcp", "tt",
		"--provider", "ollama", "--base-url", f.URL + "/v1", "--model", "qwen3", "--db", filepath.Join(t.TempDir(), "a.db")}, extra...)
}

// ran tells which of the two calls ran, from the -p JSON.
func ran(t *testing.T, res runResult) (weatherRan, emailRan bool) {
	t.Helper()
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	out := decodePrint(t, res.stdout)
	if len(out.ToolCalls) != 2 {
		t.Fatalf("tool calls = %+v", out.ToolCalls)
	}
	for _, c := range out.ToolCalls {
		switch c.Name {
		case weather:
			weatherRan = !c.IsError
		case email:
			emailRan = !c.IsError
		}
	}
	return weatherRan, emailRan
}

// The second request carries the results: what the model read of each call.
func resultsBody(t *testing.T, f *chattest.Server) string {
	t.Helper()
	reqs := f.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	return string(reqs[1].Body)
}

// #30 part 4: plan mode runs the read-only tool, refuses the destructive
// one, and the model reads why — in the tool result and in the system
// context; the default mode runs both.
func TestPlanModeRefusesDestructiveTool(t *testing.T) {
	for _, mode := range []string{"plan", "default"} {
		t.Run(mode, func(t *testing.T) {
			isolate(t)
			f := chattest.NewServer(t)
			scriptBoth(f)
			cfg := writeJSON(t, "config.json", map[string]any{})
			res := runAgent(t, nil, append([]string{"-p", "mail the forecast", "--output-format", "json"}, permsArgs(t, f, cfg, "--permission-mode", mode)...)...)
			w, e := ran(t, res)
			body := resultsBody(t, f)
			first := string(f.Requests()[0].Body)
			if !w || !strings.Contains(body, "Weather in Berlin") {
				t.Errorf("the read-only tool did not run: %s", body)
			}
			refused := strings.Contains(body, "the session is in plan mode")
			told := strings.Contains(first, "The session is in plan mode")
			if mode == "plan" && (e || !refused || !told) {
				t.Errorf("plan mode: send_email ran %v, refusal in its result %v, note in the system context %v", e, refused, told)
			}
			if mode == "default" && (!e || refused || told) {
				t.Errorf("default mode: send_email ran %v, refusal %v, note %v", e, refused, told)
			}
		})
	}
}

// Deny wins over allow, --yes and bypass; an ask rule wins over allow, and
// -p refuses an ask with a reason the model reads.
func TestPermissionRulesPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name            string
		perms           map[string]any
		flags           []string
		weather, email  bool
		reason, noCause string
	}{
		{"deny beats allow", map[string]any{"allow": []string{"server:tt"}, "deny": []string{"tt__send_email"}}, nil,
			true, false, `denied by the permissions rule \"tt__send_email\"`, ""},
		{"deny beats --yes and bypass", map[string]any{"deny": []string{"mcp__tt__send_email"}}, []string{"--yes", "--permission-mode", "bypass"},
			true, false, "denied by the permissions rule", ""},
		{"ask beats allow; -p refuses it", map[string]any{"allow": []string{"server:tt"}, "ask": []string{"@destructive"}}, nil,
			true, false, "agent runs without anyone to ask", ""},
		{"--yes answers an ask", map[string]any{"ask": []string{"@destructive"}}, []string{"--yes"},
			true, true, "", "agent runs without anyone to ask"},
		{"bypass asks nothing", map[string]any{"ask": []string{"@destructive"}}, []string{"--permission-mode", "bypass"},
			true, true, "", "agent runs without anyone to ask"},
		{"@read-only deny", map[string]any{"deny": []string{"@read-only"}}, nil,
			false, true, "denied by the permissions rule", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			f := chattest.NewServer(t)
			scriptBoth(f)
			cfg := writeJSON(t, "config.json", map[string]any{"permissions": tc.perms})
			res := runAgent(t, nil, append([]string{"-p", "mail the forecast", "--output-format", "json"}, permsArgs(t, f, cfg, tc.flags...)...)...)
			w, e := ran(t, res)
			if w != tc.weather || e != tc.email {
				t.Errorf("get_weather ran %v, send_email ran %v; want %v, %v", w, e, tc.weather, tc.email)
			}
			body := resultsBody(t, f)
			if tc.reason != "" && !strings.Contains(body, tc.reason) {
				t.Errorf("the model did not read %q: %s", tc.reason, body)
			}
			if tc.noCause != "" && strings.Contains(body, tc.noCause) {
				t.Errorf("the model read %q: %s", tc.noCause, body)
			}
		})
	}
}

// #30 part 4: "always" for the whole server, answered in the TUI's
// approval dialog, survives a restart when it is saved for the project
// (.agent/settings.local.json, with a .gitignore beside it) or the user
// (the config file); for the session only, the next run asks again.
func TestAlwaysForServerSurvivesRestart(t *testing.T) {
	for _, tc := range []struct {
		d       tui.Decision
		survive bool
	}{{tui.AllowServerProject, true}, {tui.AllowServerUser, true}, {tui.AllowServer, false}} {
		_, scope, _ := tc.d.Always()
		t.Run(scope, func(t *testing.T) {
			wd := isolate(t)
			f := chattest.NewServer(t)
			scriptBoth(f)
			cfg := writeJSON(t, "config.json", map[string]any{"require_approval": []string{"@destructive"}})
			args := permsArgs(t, f, cfg)
			// First run: the TUI's backend, the user answers "always" for tt.
			b := newTestTUIBackend(t, nil, args...)
			events := b.Send(t.Context(), "mail the forecast")
			asked := 0
			for ev := range events {
				if ev.Type == agent.EventApproval {
					asked++
					if ev.Tool.Permission == nil || ev.Tool.Permission.Source != permission.SourceRequireApproval {
						t.Errorf("approval without its cause: %+v", ev.Tool.Permission)
					}
					req := <-b.Approvals()
					req.Reply(tc.d)
				}
			}
			if asked != 1 {
				t.Fatalf("asked %d times, want once (send_email)", asked)
			}
			if len(f.Requests()) != 2 || !strings.Contains(resultsBody(t, f), "sent") {
				t.Fatalf("send_email did not run after the answer: %s", resultsBody(t, f))
			}
			b.App().Close()
			// Second run: -p, nobody to ask.
			f2 := chattest.NewServer(t)
			scriptBoth(f2)
			res := runAgent(t, nil, append([]string{"-p", "mail it again", "--output-format", "json"}, permsArgs(t, f2, cfg)...)...)
			if _, e := ran(t, res); e != tc.survive {
				t.Errorf("send_email ran %v on the next run, want %v\nstderr: %s", e, tc.survive, res.stderr)
			}
			local := filepath.Join(wd, ".agent", "settings.local.json")
			_, err := os.Stat(local)
			if (tc.d == tui.AllowServerProject) != (err == nil) {
				t.Errorf("settings.local.json exists: %v", err == nil)
			}
			if tc.d == tui.AllowServerProject {
				if b, _ := os.ReadFile(filepath.Join(wd, ".agent", ".gitignore")); !bytes.Contains(b, []byte("settings.local.json")) {
					t.Errorf(".agent/.gitignore = %q", b)
				}
			}
			user, _ := os.ReadFile(cfg)
			if got := bytes.Contains(user, []byte(`"server:tt"`)); got != (tc.d == tui.AllowServerUser) {
				t.Errorf("user config = %s", user)
			}
		})
	}
}

// A settings.local.json that came with a clone does not loosen anything
// in an untrusted directory: its allow rules are ignored with a warning,
// its deny rules (which only tighten) hold. Once agent writes the file
// itself, its allow rules are used.
func TestClonedLocalSettingsDoNotLoosen(t *testing.T) {
	wd := isolate(t)
	if err := os.MkdirAll(filepath.Join(wd, ".agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(wd, ".agent", "settings.local.json")
	if err := os.WriteFile(local, []byte(`{"permissions": {"allow": ["server:tt"], "deny": ["tt__get_weather"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f := chattest.NewServer(t)
	scriptBoth(f)
	cfg := writeJSON(t, "config.json", map[string]any{"require_approval": []string{"server:tt"}})
	res := runAgent(t, nil, append([]string{"-p", "mail the forecast", "--output-format", "json"}, permsArgs(t, f, cfg)...)...)
	w, e := ran(t, res)
	if w || e {
		t.Errorf("get_weather ran %v (the clone's deny), send_email ran %v (the clone's allow)", w, e)
	}
	out := decodePrint(t, res.stdout)
	if !strings.Contains(strings.Join(out.Warnings, "\n"), "the allow rules of "+local+" are not used") {
		t.Errorf("warnings = %q", out.Warnings)
	}
	body := resultsBody(t, f)
	if !strings.Contains(body, "agent runs without anyone to ask") || !strings.Contains(body, "denied by the permissions rule") {
		t.Errorf("the model was not told why: %s", body)
	}
}
