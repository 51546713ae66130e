package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
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
	// Completed, and while its arguments are typed, the command's use
	// stays above the input: the hint is what they are typed from.
	for _, typed := range []string{"", "12 "} {
		typeText(m, typed)
		if f := frame(m); !strings.Contains(f, "/review [pr] [priority]  Review a pull request (project:git)") || strings.Contains(f, "tab completes") {
			t.Errorf("after %q: the argument hint is not above the input:\n%s", "/review "+typed, f)
		}
	}
	m.input.Reset()
	// Commands without arguments, unknown ones and plain text show none.
	for _, typed := range []string{"/help ", "/nosuch 1", "hello there"} {
		typeText(m, typed)
		if f := frame(m); strings.Contains(f, "show keys and commands") || strings.Contains(f, "Review a pull request") {
			t.Errorf("after %q: a command's use is shown:\n%s", typed, f)
		}
		m.input.Reset()
	}
	typeText(m, "/model ")
	if f := frame(m); !strings.Contains(f, "/model [NAME]") {
		t.Errorf("a built-in's arguments are not shown:\n%s", f)
	}
	m.input.Reset()
	// Inline (the default) too, where the line above the input is drawn
	// only when it has something to say.
	in, _, _ := newInlineModel(t, b, 120, 40, Options{})
	typeText(in, "/review 12 ")
	if f := ansi.Strip(in.renderInline()); !strings.Contains(f, "/review [pr] [priority]  Review a pull request (project:git)") {
		t.Errorf("inline: the argument hint is not above the input:\n%s", f)
	}
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
