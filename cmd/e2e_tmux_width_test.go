package cmd

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// agent mcp list in an 80-column terminal fits it: the presets' commands
// and hints (DETAIL) go under their rows and the sign-in note is wrapped,
// where rows of up to 166 columns wrapped into the next; piped, the same
// command keeps every field on its row. The pane is read with its wrapped
// lines joined (-J), so a line the terminal had to wrap shows as one wider
// than 80.
func TestMCPListFitsTheTerminal(t *testing.T) {
	isolate(t)
	const detail = "npx -y @modelcontextprotocol/server-everything stdio"
	piped := runAgent(t, nil, "mcp", "list")
	if piped.code != 0 || !strings.Contains(piped.stdout, "preset  "+detail) {
		t.Fatalf("piped: exit %d, want %q whole:\n%s%s", piped.code, detail, piped.stdout, piped.stderr)
	}
	ts := startTmuxKept(t, 80, 40, tmuxEnv(), "mcp", "list")
	ts.waitFor("everything", "Sign-ins are kept in", "[exit 0]")
	screen := screenWithin80(t, ts)
	if !strings.Contains(screen, "\n    "+detail+"\n") {
		t.Errorf("the long DETAIL is not under its row:\n%s", screen)
	}
}

// screenWithin80 is the pane of an 80-column terminal with wrapped lines
// joined (-J), failing t for each line wider than the terminal: a line the
// terminal had to wrap.
func screenWithin80(t *testing.T, ts *tmuxSession) string {
	t.Helper()
	out, err := exec.Command("tmux", "-L", ts.socket, "capture-pane", "-p", "-J").Output()
	if err != nil {
		t.Fatal(err)
	}
	screen := string(out)
	for _, l := range strings.Split(screen, "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("a line of %d columns in an 80-column terminal: %q", w, l)
		}
	}
	return screen
}
