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
