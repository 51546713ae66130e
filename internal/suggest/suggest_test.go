package suggest

import "testing"

func TestNearest(t *testing.T) {
	t.Parallel()
	names := []string{"model", "max_steps", "mcp", "sessions", "provider", "no-cache"}
	for _, tc := range []struct{ in, want string }{
		{"modle", "model"},        // two letters swapped
		{"mdoel", "model"},        // swapped
		{"max_step", "max_steps"}, // one left out
		{"sesions", "sessions"},
		{"providr", "provider"},
		{"nocache", "no-cache"},
		{"model", ""}, // exact: nothing to suggest
		{"mcq", "mcp"},
		{"mc", ""},    // one edit, but half of a short word
		{"xyz", ""},   // nothing near
		{"theme", ""}, // a real word two edits from nothing listed
	} {
		if got := Nearest(tc.in, names); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
