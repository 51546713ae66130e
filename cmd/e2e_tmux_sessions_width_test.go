package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// agent sessions in an 80-column terminal fits it: a long title is cut to
// the room left, where each row ran to about 100 columns and the terminal
// wrapped it into the next; piped, the same list keeps its fields. The
// pane is read with wrapped lines joined (-J), as in
// TestMCPListFitsTheTerminal.
func TestSessionsFitsTheTerminal(t *testing.T) {
	isolate(t)
	db := filepath.Join(t.TempDir(), "a.db")
	const prompt = "Please convert 250 EUR to USD and tell me more about the rate over the years"
	if r := runAgent(t, nil, "--demo", "-p", prompt, "--db", db); r.code != 0 {
		t.Fatalf("demo run: exit %d: %s", r.code, r.stderr)
	}
	piped := runAgent(t, nil, "sessions", "--db", db)
	if piped.code != 0 || !strings.Contains(piped.stdout, "Please convert 250 EUR to USD and tell me more") {
		t.Fatalf("piped: exit %d:\n%s%s", piped.code, piped.stdout, piped.stderr)
	}
	ts := startTmuxKept(t, 80, 24, tmuxEnv(), "sessions", "--db", db)
	ts.waitFor("SEARCHES", "[exit 0]")
	screen := screenWithin80(t, ts)
	if !strings.Contains(screen, "Please convert") || !strings.Contains(screen, "demo/scripted-1") {
		t.Errorf("the row lost its title or model:\n%s", screen)
	}
}
