package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// ctrl+g opens the draft in $VISUAL with the terminal as its output: the
// program's output is wrapped, and the editor was given a pipe instead (vi
// said "Output is not to a terminal" and waited before it drew). The
// editor here writes whether its standard output is a terminal, then its
// text, which comes back into the input.
func TestEditorGetsTheTerminalInTmux(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	mark := filepath.Join(dir, "stdout")
	editor := filepath.Join(dir, "editor.sh")
	script := "#!/bin/sh\nout=pipe\n[ -t 1 ] && out=terminal\necho $out > " + mark + "\nprintf 'edited in the editor' > \"$1\"\n"
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := tmuxEnv()
	env["VISUAL"] = editor
	fake := anthropictest.NewServer(t)
	ts := startTmuxSize(t, 80, 24, env, "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(dir, "a.db"))
	ts.waitFor("/help")
	ts.send("-l", "my draft")
	ts.waitFor("my draft")
	ts.send("C-g")
	ts.waitFor("edited in the editor")
	var got []byte
	for deadline := time.Now().Add(screenWait); time.Now().Before(deadline); <-time.After(20 * time.Millisecond) {
		if b, err := os.ReadFile(mark); err == nil && len(b) > 0 {
			got = b
			break
		}
	}
	if strings.TrimSpace(string(got)) != "terminal" {
		t.Errorf("the editor's standard output was a %q, want the terminal", strings.TrimSpace(string(got)))
	}
	ts.quit()
}
