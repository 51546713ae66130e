package tui

import (
	"strings"
	"testing"
)

// #30 part 3: custom commands complete with their argument hint, are
// listed by /help with their description and source, and run as the turn
// "/NAME ARGS" (the backend expands it); a built-in of the same name wins,
// said once.
func TestCustomCommands(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	b.info.Commands = []CommandInfo{
		{Name: "review", Description: "Review a pull request", ArgumentHint: "[pr] [priority]", Source: "project:git", Path: "/r/.agent/commands/git/review.md"},
		{Name: "help", Description: "my own help", Source: "user", Path: "/u/commands/help.md"},
	}
	m, turns, _ := newTestModel(t, b, 120, 40, Options{})
	if f := frame(m); strings.Count(f, "custom command /help (/u/commands/help.md) is hidden by the built-in /help") != 1 {
		t.Errorf("no single warning of the hidden command:\n%s", f)
	}
	m.Update(infoMsg(b.Info()))
	if f := frame(m); strings.Count(f, "is hidden by the built-in") != 1 {
		t.Errorf("the warning is said again:\n%s", f)
	}
	typeText(m, "/rev")
	if f := frame(m); !strings.Contains(f, "/review [pr] [priority]") || !strings.Contains(f, "Review a pull request (project:git)") {
		t.Errorf("completion does not show the command:\n%s", f)
	}
	pressKey(m, tabKey)
	if v := m.input.Value(); v != "/review " {
		t.Fatalf("tab: %q", v)
	}
	m.input.Reset()
	typeText(m, "/help")
	press(m, "enter")
	f := frame(m)
	if !strings.Contains(f, "Custom commands") || !strings.Contains(f, "/review [pr] [priority] Review a pull request (project:git)") || strings.Contains(f, "my own help") {
		t.Errorf("/help:\n%s", f)
	}
	typeText(m, "/review 12 high")
	run(m, press(m, "enter"))
	if len(turns.started) != 1 || turns.started[0] != "/review 12 high" {
		t.Fatalf("turns %q, want the command sent for the backend to expand", turns.started)
	}
	typeText(m, "/nosuch")
	press(m, "enter")
	if !strings.Contains(frame(m), "unknown command /nosuch; /help lists them") {
		t.Error("an unknown command is not refused")
	}
	// A typo names what was meant, a custom command as well as a
	// built-in one, and reaches neither the model nor the backend.
	for typo, meant := range map[string]string{"/modle": "/model", "/reviw": "/review", "/exprot": "/export"} {
		typeText(m, typo)
		press(m, "enter")
		if want := "unknown command " + typo + ": did you mean " + meant + "?"; !strings.Contains(frame(m), want) {
			t.Errorf("%s: %q is not in the frame:\n%s", typo, want, frame(m))
		}
	}
	if len(turns.started) != 1 {
		t.Errorf("a mistyped command was sent: %q", turns.started)
	}
}
