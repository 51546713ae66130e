package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools/permission"
)

// shift+tab cycles the permission modes; the status bar shows the mode
// (not the default one) at any width, and the chat says what it does.
func TestShiftTabCyclesPermissionModes(t *testing.T) {
	t.Parallel()
	shiftTab := tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	for _, w := range []int{200, 80, 40} {
		b := newFakeBackend()
		m, _, _ := newTestModel(t, b, w, 24, Options{})
		if strings.Contains(frame(m), "mode ") {
			t.Fatalf("width %d: the default mode is shown:\n%s", w, frame(m))
		}
		for _, want := range []string{"accept-reads", "plan", "default"} {
			run(m, pressKey(m, shiftTab))
			f := frame(m)
			lines := strings.Split(strings.TrimRight(f, "\n"), "\n")
			bar := ""
			for _, l := range lines {
				if strings.Contains(l, "ctx ") {
					bar = l
				}
			}
			if shown := strings.Contains(bar, "mode "+want); shown != (want != "default") {
				t.Errorf("width %d, mode %s: status bar %q", w, want, bar)
			}
			if w == 200 && !strings.Contains(f, "permission mode: "+want) {
				t.Errorf("mode %s: no notice in\n%s", want, f)
			}
		}
	}
}

// "a" opens the choices of "always": this tool or its whole server, for
// this session, this project or always; esc goes back.
func TestApprovalAlwaysChoices(t *testing.T) {
	t.Parallel()
	m, _, _ := newTestModel(t, newFakeBackend(), 120, 30, Options{})
	m.Update(approvalMsg{Req: ApprovalRequest{Tool: agent.ToolEvent{ID: "c1", Name: "fs__rm", Server: "fs"}, Reply: func(Decision) {}}})
	if f := frame(m); !strings.Contains(f, "a always…") {
		t.Fatalf("no always key:\n%s", f)
	}
	press(m, "a")
	f := frame(m)
	for _, want := range []string{"Always allow fs__rm", "this tool: 1 this session  2 this project  3 always", "server fs: 4 this session  5 this project  6 always  esc back"} {
		if !strings.Contains(f, want) {
			t.Errorf("missing %q in\n%s", want, f)
		}
	}
	press(m, "esc")
	if f := frame(m); !strings.Contains(f, "Allow this tool call?") {
		t.Errorf("esc did not go back:\n%s", f)
	}
}

// The help line under an approval lists the keys the dialog takes: no
// "a" where the dialog offers no "always" (an explicit ask rule, a hook:
// they would ask again, and "a" did nothing while the line offered it),
// and the choices once "always" is open.
func TestApprovalHelpLineMatchesDialog(t *testing.T) {
	t.Parallel()
	rule := &permission.Decision{Behavior: permission.Ask, Source: permission.SourceRule, Reason: `the permissions rule "@destructive" asks for fs__rm`}
	hook := &permission.Decision{Behavior: permission.Ask, Source: permission.SourceHook, Reason: "hook says ask"}
	for _, tc := range []struct {
		name        string
		perm        *permission.Decision
		sessionOnly bool
		pressA      bool
		want        []string
		not         []string
	}{
		{name: "require_approval", want: []string{"y allow once", "n deny", "a always allow…", "ctrl+c deny and cancel the turn"}},
		{name: "ask rule", perm: rule, want: []string{"y allow once", "n deny", "ctrl+c"}, not: []string{"always"}},
		{name: "hook", perm: hook, want: []string{"y allow once", "n deny"}, not: []string{"always"}},
		{name: "session only", sessionOnly: true, want: []string{"a always, this session"}, not: []string{"always allow…"}},
		{name: "always open", pressA: true, want: []string{"1-6 choose", "esc back"}, not: []string{"y allow once", "always allow…"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := newTestModel(t, newFakeBackend(), 120, 30, Options{})
			m.Update(approvalMsg{Req: ApprovalRequest{Tool: agent.ToolEvent{ID: "c1", Name: "fs__rm", Server: "fs", Permission: tc.perm},
				SessionOnly: tc.sessionOnly, Reply: func(Decision) {}}})
			if tc.pressA {
				press(m, "a")
			}
			lines := strings.Split(strings.TrimRight(frame(m), "\n"), "\n")
			help := lines[len(lines)-1]
			for _, w := range tc.want {
				if !strings.Contains(help, w) {
					t.Errorf("help line %q lacks %q", help, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(help, n) {
					t.Errorf("help line %q offers %q", help, n)
				}
			}
		})
	}
}

// The approval question shows every argument of the call, one a line (a
// long one cut at two), so what is approved is read before "y": one line
// of them all, cut at the width, hid a file write's path behind its
// content, and at 40 columns a move's source. A call of many arguments
// says how many are left out, and the frame still fits the screen.
func TestApprovalShowsEveryArgument(t *testing.T) {
	t.Parallel()
	key := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl attacker@evil"
	many := `{"a1":1,"a2":2,"a3":3,"a4":4,"a5":5,"a6":6,"a7":7,"a8":8,"a9":9,"b1":10,"b2":11,"b3":12}`
	for _, tc := range []struct {
		name          string
		width, height int
		input         string
		want          []string
	}{
		{"write at 80", 80, 24, `{"content":"` + key + `","path":"/home/user/.ssh/authorized_keys"}`,
			[]string{`path="/home/user/.ssh/authorized_keys"`, `content="ssh-ed25519`}},
		{"move at 40", 40, 20, `{"source":"/tmp/nu5/proj/b.txt","destination":"/tmp/nu5/proj/a.txt"}`,
			[]string{`source="/tmp/nu5/proj/b.txt"`, `destination="/tmp/nu5/proj/a.txt"`}},
		{"escape sequence", 80, 24, `{"content":"hi \u001b]0;X\u0007","path":"p"}`,
			[]string{`content="hi \x1b]0;X\a"`, `path="p"`}},
		{"many", 80, 24, many, []string{"a1=1", "… and"}},
		{"not an object", 80, 24, `"just text"`, []string{`"just text"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := newTestModel(t, newFakeBackend(), tc.width, tc.height, Options{})
			m.Update(approvalMsg{Req: ApprovalRequest{Tool: agent.ToolEvent{ID: "c1", Name: "fs__write_file", Server: "fs", Input: []byte(tc.input)}, Reply: func(Decision) {}}})
			raw := m.View().Content
			if strings.Contains(raw, "\x1b]0;") || strings.Contains(raw, "\a") {
				t.Fatalf("the call's escape sequence reached the terminal: %q", raw)
			}
			f := frame(m)
			flat := strings.ReplaceAll(f, "║\n║ ", "")
			for _, w := range tc.want {
				if !strings.Contains(f, w) && !strings.Contains(flat, w) {
					t.Errorf("%q not shown in\n%s", w, f)
				}
			}
			if rows := strings.Count(f, "\n"); rows > tc.height {
				t.Errorf("the frame takes %d rows of %d:\n%s", rows, tc.height, f)
			}
			if !strings.Contains(f, "y allow once") {
				t.Errorf("the answers are not shown:\n%s", f)
			}
		})
	}
}

// Why a call is asked reads whole at 80 columns and narrower: cut at the
// end of the title line, the rule that asked was lost ("the permissions
// rule "mem__re…"); the question keeps its keys and the status bar.
func TestApprovalReasonReadsWhole(t *testing.T) {
	t.Parallel()
	reason := `the permissions rule "mem__read_graph" asks for mem__read_graph`
	for _, w := range []int{200, 80, 50} {
		m, _, _ := newTestModel(t, newFakeBackend(), w, 24, Options{})
		m.Update(approvalMsg{Req: ApprovalRequest{
			Tool:  agent.ToolEvent{ID: "c1", Name: "mem__read_graph", Server: "mem", Input: []byte(`{}`), Permission: &permission.Decision{Behavior: permission.Ask, Source: permission.SourceRule, Reason: reason}},
			Reply: func(Decision) {}}})
		f := frame(m)
		var words []string
		for _, l := range strings.Split(f, "\n") {
			words = append(words, strings.Fields(strings.Trim(l, "║ "))...)
		}
		if got := strings.Join(words, " "); !strings.Contains(got, reason) {
			t.Errorf("width %d: the reason is not whole in\n%s", w, f)
		}
		for _, want := range []string{"Allow this tool call? mem__read_graph", "y allow once", "ctx "} {
			if !strings.Contains(f, want) {
				t.Errorf("width %d: missing %q in\n%s", w, want, f)
			}
		}
		if n := strings.Count(f, "\n"); n > 24 {
			t.Errorf("width %d: %d lines in a 24-row terminal", w, n)
		}
	}
}
