package config

import (
	"os"
	"path/filepath"
	"testing"
)

// Locate finds the top-level key, not a nested one of the same name.
func TestLocate(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, body, key, want string }{
		{"top level", "{\n  \"theme\": \"neon\"\n}", "theme", ":2:3"},
		{"nested first", `{"models": {"m": {"provider": "a"}}, "provider": "b"}`, "provider", ":1:38"},
		{"not set", `{"theme": "dark"}`, "provider", ""},
		{"not an object", `[1]`, "theme", ""},
	} {
		p := filepath.Join(dir, tc.name+".json")
		if err := os.WriteFile(p, []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := Locate(p, tc.key); got != p+tc.want {
			t.Errorf("%s: Locate = %q, want %q", tc.name, got, p+tc.want)
		}
	}
	if got := Locate(filepath.Join(dir, "missing.json"), "theme"); got != filepath.Join(dir, "missing.json") {
		t.Errorf("missing file: %q", got)
	}
}
