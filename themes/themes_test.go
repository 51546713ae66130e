package themes

import (
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	t.Parallel()
	for _, n := range Names() {
		s, err := Get(n)
		if err != nil || s == nil {
			t.Fatalf("Get(%q): %v", n, err)
		}
	}
	if _, err := Get("nope"); err == nil || !strings.Contains(err.Error(), "dracula") {
		t.Fatalf("unknown theme error should list names, got %v", err)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		dark, nc bool
		want     string
	}{
		{"auto", true, false, "dark"},
		{"auto", false, false, "light"},
		{"", false, false, "light"},
		{"dracula", false, false, "dracula"},
		{"catppuccin", true, true, "plain"},
	}
	for _, tt := range tests {
		s, err := Resolve(tt.name, tt.dark, tt.nc)
		if err != nil {
			t.Fatal(err)
		}
		if s.Palette.Name != tt.want {
			t.Errorf("Resolve(%q, dark=%v, nocolor=%v) = %s, want %s", tt.name, tt.dark, tt.nc, s.Palette.Name, tt.want)
		}
	}
}

func TestPlainHasNoColour(t *testing.T) {
	t.Parallel()
	out := Plain().Accent.Render("x") + Plain().Bar.Render("y")
	if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
		t.Fatalf("plain theme emitted colour: %q", out)
	}
}
