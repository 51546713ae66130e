package tui

import (
	"slices"
	"testing"
)

// BuiltinCommand is what -p reads to refuse a TUI command as one: every
// command /help lists is one, a custom or unknown name is not, and every
// shell equivalent named belongs to a command that exists (a renamed
// command would otherwise leave its entry behind unused).
func TestBuiltinCommand(t *testing.T) {
	for _, tt := range []struct {
		name    string
		ok      bool
		instead string
	}{
		{"/help", true, "agent --help"},
		{"/tools", true, "agent tools"},
		{"/resume", true, "--resume ID or --continue"},
		{"/exit", true, ""},
		{"/copy", true, ""},
		{"/review", false, ""},
		{"/everything:args-prompt", false, ""},
	} {
		instead, ok := BuiltinCommand(tt.name)
		if ok != tt.ok || instead != tt.instead {
			t.Errorf("BuiltinCommand(%q) = %q, %v; want %q, %v", tt.name, instead, ok, tt.instead, tt.ok)
		}
	}
	for _, name := range commandNames() {
		if _, ok := BuiltinCommand(name); !ok {
			t.Errorf("%s is in /help but not a built-in command", name)
		}
	}
	for name := range outside {
		if !slices.Contains(commandNames(), name) && name != "/resume" {
			t.Errorf("outside names %s, which is no TUI command", name)
		}
	}
}
