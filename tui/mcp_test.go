package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
)

// fakeMCP is a fakeBackend with MCP servers.
type fakeMCP struct {
	*fakeBackend
	controls []string
	args     []string
}

func (f *fakeMCP) MCPServers() []MCPServerInfo {
	return []MCPServerInfo{{Name: "ev", State: "running", Tools: 16, Hidden: 1, Prompts: 4, Resource: 7}}
}
func (f *fakeMCP) MCPControl(_ context.Context, action, name string) (string, error) {
	f.controls = append(f.controls, action+" "+name)
	if name != "ev" {
		return "", errors.New(`no MCP server "` + name + `": did you mean "ev"? (/mcp lists them)`)
	}
	return "MCP server " + name + ": disabled, 0 tools", nil
}
func (f *fakeMCP) MCPPrompts() []MCPPromptInfo {
	return []MCPPromptInfo{{Server: "ev", Name: "args-prompt", Args: []string{"city", "state"}}}
}
func (f *fakeMCP) MCPResources() []string { return []string{"ev:demo://resource/static/document/a.md"} }
func (f *fakeMCP) ExpandPrompt(_ context.Context, server, prompt, args string) (string, error) {
	f.args = append(f.args, args)
	if args == "" {
		return "", errors.New("prompt args-prompt needs city: /ev:args-prompt city=VALUE")
	}
	return "What's the weather in " + args + "?", nil
}
func (f *fakeMCP) CompletePrompt(_ context.Context, server, prompt, arg, value string) ([]string, error) {
	if arg == "city" {
		return []string{"Paris", "Palermo"}, nil
	}
	return nil, nil
}
func (f *fakeMCP) ReadResource(_ context.Context, server, uri string) (string, error) {
	return "# A\nbody of " + uri, nil
}

func newMCPModel(t *testing.T) (*Model, *fakeMCP, *fakeTurns) {
	t.Helper()
	f := &fakeMCP{fakeBackend: newFakeBackend()}
	m, err := New(f, Options{Width: 100, Height: 30, Theme: "dark", AltScreen: true, RefreshEvery: time.Millisecond, Now: (&clock{t: epoch}).Now})
	if err != nil {
		t.Fatal(err)
	}
	turns := &fakeTurns{}
	m.turns = turns
	m.Update(infoMsg(f.Info()))
	run(m, mcpListCmd(f))
	return m, f, turns
}

func TestMCPPromptCommandAndCompletion(t *testing.T) {
	m, f, turns := newMCPModel(t)
	typeText(m, "/ev:ar")
	tab(m)
	if v := m.input.Value(); v != "/ev:args-prompt " {
		t.Fatalf("prompt name completion: %q", v)
	}
	typeText(m, "Pa")
	tab(m) // the server's completions: Paris, Palermo (their common prefix is typed: the first)
	if v := m.input.Value(); v != "/ev:args-prompt Paris" {
		t.Fatalf("argument completion: %q", v)
	}
	run(m, press(m, "enter"))
	if len(f.args) != 1 || f.args[0] != "Paris" {
		t.Fatalf("prompt args: %v", f.args)
	}
	if len(turns.started) != 1 || turns.started[0] != "What's the weather in Paris?" {
		t.Fatalf("turn started with %q", turns.started)
	}
}

func TestMCPListControlAndResource(t *testing.T) {
	m, f, turns := newMCPModel(t)
	typeText(m, "/mcp")
	run(m, press(m, "enter"))
	if s := frame(m); !strings.Contains(s, "ev  running · 16 tools (+1 hidden) · 4 prompts") {
		t.Fatalf("/mcp:\n%s", s)
	}
	typeText(m, "/mcp disable ev")
	run(m, press(m, "enter"))
	if len(f.controls) != 1 || f.controls[0] != "disable ev" {
		t.Fatalf("controls: %v", f.controls)
	}
	typeText(m, "summarise @ev:demo")
	tab(m)
	if v := m.input.Value(); v != "summarise @ev:demo://resource/static/document/a.md " {
		t.Fatalf("resource completion: %q", v)
	}
	run(m, press(m, "enter"))
	if len(turns.started) != 1 || !strings.Contains(turns.started[0], `<resource server="ev" uri="demo://resource/static/document/a.md">`) {
		t.Fatalf("resource not attached: %q", turns.started)
	}
	// During a turn, /mcp actions wait.
	typeText(m, "/mcp enable ev")
	run(m, press(m, "enter"))
	if len(f.controls) != 1 || !strings.Contains(m.hint, "waits for the turn") {
		t.Fatalf("control during a turn: %v, hint %q", f.controls, m.hint)
	}
}

func tab(m *Model) {
	_, cmd := m.Update(tabKey)
	run(m, cmd)
}

func TestToolCardShowsProgress(t *testing.T) {
	total := 5.0
	for _, tc := range []struct {
		name string
		p    agent.ToolProgress
		want string
		not  string
	}{
		{"count of a total", agent.ToolProgress{Progress: 3, Total: &total, Message: "step \x1b[31mthree"}, "… 3/5 60% step three", ""},
		{"count alone", agent.ToolProgress{Progress: 2}, "… 2", ""},
		// An MCP task's status (server-everything's simulate-research-query).
		{"status of a task", agent.ToolProgress{Message: "working: Gathering sources..."}, "… working: Gathering sources...", "… 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newFakeBackend()
			m, _, _ := newTestModel(t, b, 100, 30, Options{})
			p := tc.p
			p.ID = "t1"
			feed(m, b, []agent.Event{
				{Type: agent.EventToolStarted, Tool: &agent.ToolEvent{ID: "t1", Name: "ev__long", Server: "ev"}},
				{Type: agent.EventToolProgress, Progress: &p},
			})
			f := frame(m)
			if !strings.Contains(f, tc.want) || (tc.not != "" && strings.Contains(f, tc.not)) {
				t.Fatalf("card shows not %q (or shows %q; or not sanitised):\n%s", tc.want, tc.not, f)
			}
			feed(m, b, []agent.Event{{Type: agent.EventToolFinished, Tool: &agent.ToolEvent{ID: "t1", Name: "ev__long", Server: "ev", Result: "done"}}})
			if f := frame(m); strings.Contains(f, tc.want) {
				t.Fatalf("a finished card still shows progress:\n%s", f)
			}
		})
	}
}

// /mcp with no server says how to connect one; in the demo, whose /tools
// lists the tools of servers named weather, codehost and so on, it says
// they come from a bundled catalog: "no MCP servers in this session"
// alone contradicted /tools.
func TestMCPNoServersSaysWhatToDo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		provider string
		want     string
	}{
		{"demo", "no MCP servers in the demo: its tools come from a bundled catalog; run agent --mcp NAME"},
		{"fake", "no MCP servers in this session: run agent --mcp NAME to connect one (agent mcp list shows the presets)"},
	} {
		b := newFakeBackend()
		b.info.Provider = tc.provider
		m, _, _ := newTestModel(t, b, 200, 30, Options{})
		typeText(m, "/mcp")
		run(m, press(m, "enter"))
		if f := frame(m); !strings.Contains(f, tc.want) {
			t.Errorf("%s: no %q in\n%s", tc.provider, tc.want, f)
		}
	}
}

// An @server:uri of a server that lists resources is a resource, not a
// file: it was attached and also warned about ("@ev:demo://… not attached:
// no such file"), two lines that contradicted each other. An @word that is
// neither a resource nor a file still says so.
func TestResourceMentionIsNotAFile(t *testing.T) {
	for _, tc := range []struct {
		prompt, note, warning string
	}{
		{"summarise @ev:demo://resource/static/document/a.md", "attached @ev:demo://resource/static/document/a.md", ""},
		{"summarise @nosuch:thing", "", "@nosuch:thing not attached: no such file"},
	} {
		t.Run(tc.prompt, func(t *testing.T) {
			t.Chdir(t.TempDir())
			m, _, turns := newMCPModel(t)
			typeText(m, tc.prompt)
			run(m, press(m, "enter"))
			if len(turns.started) != 1 {
				t.Fatalf("turns started: %q", turns.started)
			}
			f := frame(m)
			if tc.note != "" && !strings.Contains(f, tc.note) {
				t.Errorf("no note %q:\n%s", tc.note, f)
			}
			if tc.warning == "" && strings.Contains(f, "not attached") {
				t.Errorf("a resource was also warned about as a file:\n%s", f)
			}
			if tc.warning != "" && !strings.Contains(f, tc.warning) {
				t.Errorf("no warning %q:\n%s", tc.warning, f)
			}
		})
	}
}

// An MCP server's prompt says its arguments above the input while they
// are typed, as a custom command's argument hint does: nothing said
// them, and they were learnt from the error of running it without them.
func TestMCPPromptShowsItsArguments(t *testing.T) {
	for _, typed := range []string{"/ev:args-prompt ", "/ev:args-prompt Paris"} {
		t.Run(typed, func(t *testing.T) {
			m, _, _ := newMCPModel(t)
			typeText(m, typed)
			if f := frame(m); !strings.Contains(f, "/ev:args-prompt city state") || !strings.Contains(f, "(MCP server ev)") {
				t.Errorf("the prompt's arguments are not shown:\n%s", f)
			}
		})
	}
}

// A prompt sent without its required argument comes back to the input,
// to be completed: the input was emptied and the command typed again.
func TestMCPPromptMissingArgumentKeepsTheCommand(t *testing.T) {
	m, _, turns := newMCPModel(t)
	typeText(m, "/ev:args-prompt")
	run(m, press(m, "enter"))
	if f := frame(m); !strings.Contains(f, "needs city") {
		t.Fatalf("no warning of the missing argument:\n%s", f)
	}
	if v := m.input.Value(); v != "/ev:args-prompt " || len(turns.started) != 0 {
		t.Errorf("input %q after the refused prompt (want the command back); turns %q", v, turns.started)
	}
}

// A mistyped /mcp action, or one without its server, is refused with what
// was meant, nothing is asked of the backend, and what was typed stays in
// the input to be fixed: "/mcp reconect memory" was cleared, with
// "unknown /mcp action" and no suggestion.
func TestMCPActionMistypedKeepsTheInput(t *testing.T) {
	for _, tt := range []struct{ typed, says string }{
		{"/mcp reconect ev", `unknown /mcp action "reconect": did you mean reconnect?`},
		{"/mcp frobnicate ev", `unknown /mcp action "frobnicate": use reconnect,`},
		{"/mcp reconnect", "usage: /mcp reconnect NAME (/mcp lists the servers)"},
	} {
		t.Run(tt.typed, func(t *testing.T) {
			m, f, _ := newMCPModel(t)
			typeText(m, tt.typed)
			run(m, press(m, "enter"))
			// Read as words: the chat column wraps a long notice.
			if s := strings.Join(strings.Fields(frame(m)), " "); !strings.Contains(s, tt.says) {
				t.Errorf("the chat does not say %q:\n%s", tt.says, s)
			}
			if v := m.input.Value(); v != tt.typed {
				t.Errorf("the input holds %q, want %q kept", v, tt.typed)
			}
			if len(f.controls) != 0 {
				t.Errorf("the backend was asked %v", f.controls)
			}
		})
	}
}

// A /mcp action the backend refuses (a mistyped server's name) comes back
// to the input to be fixed, as a refused prompt does; it was cleared and
// had to be typed again. Text typed meanwhile is not replaced.
func TestMCPActionRefusedComesBack(t *testing.T) {
	for _, tt := range []struct{ name, meanwhile, want string }{
		{"empty input", "", "/mcp reconnect evv"},
		{"typed meanwhile", "hello", "hello"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, f, _ := newMCPModel(t)
			typeText(m, "/mcp reconnect evv")
			cmd := press(m, "enter")
			typeText(m, tt.meanwhile)
			run(m, cmd)
			if len(f.controls) != 1 || f.controls[0] != "reconnect evv" {
				t.Fatalf("controls %v", f.controls)
			}
			if s := strings.Join(strings.Fields(frame(m)), " "); !strings.Contains(s, `no MCP server "evv"`) {
				t.Errorf("the refusal is not said:\n%s", frame(m))
			}
			if v := m.input.Value(); v != tt.want {
				t.Errorf("the input holds %q, want %q", v, tt.want)
			}
		})
	}
}
