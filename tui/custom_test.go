package tui

import (
	"strings"
	"testing"
	"time"

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
	// built-in one, and reaches neither the model nor the backend. What
	// was typed stays in the input, to be fixed or sent as typed.
	for typo, meant := range map[string]string{"/modle": "/model", "/reviw": "/review", "/exprot": "/export"} {
		m.input.Reset()
		typeText(m, typo)
		press(m, "enter")
		if want := "unknown command " + typo + ": did you mean " + meant + "?"; !strings.Contains(frame(m), want) {
			t.Errorf("%s: %q is not in the frame:\n%s", typo, want, frame(m))
		}
		if v := m.input.Value(); v != typo {
			t.Errorf("%s: the input holds %q after the refusal, want what was typed", typo, v)
		}
	}
	if len(turns.started) != 1 {
		t.Errorf("a mistyped command was sent: %q", turns.started)
	}
}

// Text that starts with "/" reaches the model when a blank comes before
// it, as -p " /text" does: the TUI had no way to send "/help" or
// "/review 12" as words. A path is no command and goes as typed.
func TestLeadingSpaceSendsAsTyped(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, typed, sent string // sent "": nothing started
	}{
		{"a built-in", " /help me read this", " /help me read this"},
		{"a custom command", "  /review 12", " /review 12"},
		{"an unknown command", " /nosuch", " /nosuch"},
		{"a path", "/etc/hosts is what?", "/etc/hosts is what?"},
		{"a command", "/review 12", "/review 12"},
		{"the built-in without", "/help", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := newFakeBackend()
			b.info.Commands = []CommandInfo{{Name: "review", Source: "user"}}
			m, turns, _ := newTestModel(t, b, 100, 30, Options{})
			typeText(m, tt.typed)
			run(m, press(m, "enter"))
			var want []string
			if tt.sent != "" {
				want = []string{tt.sent}
			}
			if strings.Join(turns.started, "|") != strings.Join(want, "|") {
				t.Errorf("typed %q: turns %q, want %q", tt.typed, turns.started, want)
			}
		})
	}
}

// untrustedBackend knows a command of a project it does not trust.
type untrustedBackend struct{ *fakeBackend }

func (untrustedBackend) UntrustedCommand(name string) bool { return name == "ship" }

// A command of an untrusted project is refused saying so, as -p does: the
// TUI said "unknown command /ship", as if the project's .agent/commands
// did not have it.
func TestUntrustedProjectCommandSaysSo(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ typed, says string }{
		{"/ship now", "/ship is a command of this project, which is not trusted"},
		{"/shp", "unknown command /shp"},
	} {
		t.Run(tt.typed, func(t *testing.T) {
			b := untrustedBackend{newFakeBackend()}
			m, err := New(b, Options{Width: 120, Height: 40, Theme: "dark", AltScreen: true, RefreshEvery: time.Millisecond, Now: (&clock{t: epoch}).Now})
			if err != nil {
				t.Fatal(err)
			}
			turns := &fakeTurns{}
			m.turns = turns
			m.Update(infoMsg(b.Info()))
			typeText(m, tt.typed)
			run(m, press(m, "enter"))
			if s := strings.Join(strings.Fields(frame(m)), " "); !strings.Contains(s, tt.says) {
				t.Errorf("the chat does not say %q:\n%s", tt.says, frame(m))
			}
			if len(turns.started) != 0 || m.input.Value() != tt.typed {
				t.Errorf("turns %q, input %q: want nothing sent, the text kept", turns.started, m.input.Value())
			}
		})
	}
}
