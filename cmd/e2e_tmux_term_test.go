package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

func tmuxEnv() map[string]string {
	return map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "HOME": os.Getenv("HOME"),
		"XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "XDG_DATA_HOME": os.Getenv("XDG_DATA_HOME"),
		"XDG_STATE_HOME": os.Getenv("XDG_STATE_HOME"), "NO_COLOR": ""}
}

// statusLine is the screen's line holding the status bar (it shows ctx %).
func statusLine(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "ctx ") && strings.Contains(l, "$") {
			return l
		}
	}
	return ""
}

// #27: the model name survives in the status bar at 80, 100 and 120
// columns; the session id, search mode and last request go first.
func TestStatusBarModelAtWidthsInTmux(t *testing.T) {
	for _, width := range []int{80, 100, 120} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			isolate(t)
			fake := anthropictest.NewServer(t)
			fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Done here."}))
			// A full bar: deferred tools (search mode, tokens saved), a
			// session, a request's tokens.
			ts := startTmuxSize(t, width, 30, tmuxEnv(), "--provider", "anthropic", "--model", "claude-sonnet-4-5",
				"--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"), "--mcp-config", testMCPConfig(t), "--mcp", "tt", "--defer")
			ts.waitFor("/help", "ctx ", "MCP server tt is up")
			ts.send("Hello", "Enter")
			screen := ts.waitFor("Done here.")
			bar := statusLine(screen)
			if !strings.Contains(bar, "anthropic/claude-sonnet-4-5 ") || !strings.Contains(bar, "ctx 0%") {
				t.Errorf("width %d: the status bar lost the model or ctx:\n%q", width, bar)
			}
			ts.quit()
		})
	}
}

// sgr finds the terminal's style sequences in a capture with -e.
var sgr = regexp.MustCompile("\x1b\\[([0-9;:]*)m")

// colours lists the colour settings among a capture's style sequences
// (bold, italic, dim and resets are not colours).
func colours(screen string) []string {
	var out []string
	for _, m := range sgr.FindAllStringSubmatch(screen, -1) {
		params := strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' })
		for i := 0; i < len(params); i++ {
			n, _ := strconv.Atoi(params[i])
			switch {
			case n == 38 || n == 48 || n == 58:
				out = append(out, m[0])
				i = len(params) // the rest are the colour's own numbers
			case n >= 30 && n <= 37, n >= 40 && n <= 47, n >= 90 && n <= 97, n >= 100 && n <= 107:
				out = append(out, m[0])
			}
		}
	}
	return out
}

// #27: with NO_COLOR the whole screen, Markdown answer included, has no
// colour codes; bold stays. Without it the same screen is coloured (so the
// check can fail).
func TestNoColorInTmux(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		t.Run("NO_COLOR="+strconv.FormatBool(noColor), func(t *testing.T) {
			isolate(t)
			fake := anthropictest.NewServer(t)
			fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "It is **sunny** in `Berlin`:\n\n- one\n- two\n\n```go\nfmt.Println(1)\n```"}))
			env := tmuxEnv()
			if noColor {
				env["NO_COLOR"] = "1"
			}
			ts := startTmuxSize(t, 100, 30, env, "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"))
			ts.waitFor("/help")
			ts.send("Weather?", "Enter")
			ts.waitFor("sunny", "Println")
			out, err := exec.Command("tmux", "-L", ts.socket, "capture-pane", "-e", "-p", "-S", "-", "-E", "-").Output()
			if err != nil {
				t.Fatal(err)
			}
			got := colours(string(out))
			switch {
			case noColor && len(got) > 0:
				t.Errorf("NO_COLOR: %d colour codes, e.g. %q", len(got), got[:min(5, len(got))])
			case !noColor && len(got) == 0:
				t.Error("no colour codes without NO_COLOR: the check cannot see colour")
			}
			if noColor && !strings.Contains(string(out), "\x1b[1m") {
				t.Error("NO_COLOR: bold is gone too")
			}
			ts.quit()
		})
	}
}
