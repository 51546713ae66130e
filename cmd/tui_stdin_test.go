package cmd

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Text piped or redirected to the terminal UI is not read, and the UI
// says so (it dropped "echo QUESTION | agent" without a word); a
// terminal, /dev/null or no file says nothing.
func TestPipedStdinWarning(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file := filepath.Join(t.TempDir(), "prompt.txt")
	if err := os.WriteFile(file, []byte("hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	redirected, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer redirected.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, tc := range []struct {
		name  string
		stdin io.Reader
		warn  bool
	}{
		{"pipe", r, true},
		{"file", redirected, true},
		{"dev null", null, false},
		{"not a file", strings.NewReader("hi"), false},
	} {
		got := pipedStdinWarning(tc.stdin)
		if (got != "") != tc.warn || (tc.warn && !strings.Contains(got, "agent -p PROMPT")) {
			t.Errorf("%s: warning %q, want one: %v", tc.name, got, tc.warn)
		}
	}
}
