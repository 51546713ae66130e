package tui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The candidates above the input are whole words at any width: those that
// do not fit are counted ("… +N more"), never cut in the middle, which at
// 120 columns showed "/m" for /mcp after "/" alone.
func TestCompletionLineKeepsWholeCandidates(t *testing.T) {
	t.Parallel()
	line := regexp.MustCompile(`(?m)^tab: .*$`)
	for _, tc := range []struct {
		width    int
		typed    string
		wantMore bool
	}{
		{120, "/", true},
		{60, "/", true},
		{30, "/", true},
		{120, "/c", false},
	} {
		m, _, _ := newTestModel(t, newFakeBackend(), tc.width, 24, Options{})
		typeText(m, tc.typed)
		got := strings.TrimRight(line.FindString(ansi.Strip(frame(m))), " ")
		if got == "" {
			t.Fatalf("width %d, %q: no candidate line:\n%s", tc.width, tc.typed, frame(m))
		}
		if w := ansi.StringWidth(got); w > tc.width {
			t.Errorf("width %d, %q: line %d wide: %q", tc.width, tc.typed, w, got)
		}
		words := strings.Fields(strings.TrimPrefix(got, "tab: "))
		if more := strings.Contains(got, "more"); more != tc.wantMore {
			t.Errorf("width %d, %q: %q, want a count of the rest: %v", tc.width, tc.typed, got, tc.wantMore)
		}
		for _, w := range words {
			if !strings.HasPrefix(w, "/") && w != "…" && w != "more" && !strings.HasPrefix(w, "+") {
				t.Errorf("width %d, %q: %q is not a candidate in %q", tc.width, tc.typed, w, got)
				continue
			}
			if strings.HasPrefix(w, "/") && !isCommand(m, w) {
				t.Errorf("width %d, %q: %q is cut, in %q", tc.width, tc.typed, w, got)
			}
		}
	}
}

func isCommand(m *Model, w string) bool {
	for _, it := range m.comp.items {
		if it == w {
			return true
		}
	}
	return false
}

// The empty input's placeholder is whole at any width: the short form
// where the long one does not fit (at 30 columns it read "/help for").
func TestPlaceholderFitsTheBox(t *testing.T) {
	t.Parallel()
	box := regexp.MustCompile(`│ Ask anything · /help( for commands)? *│`)
	for _, width := range []int{24, 30, 38, 40, 60, 120} {
		m, _, _ := newTestModel(t, newFakeBackend(), width, 24, Options{})
		f := ansi.Strip(frame(m))
		if !box.MatchString(f) {
			t.Errorf("width %d: no whole placeholder in the input box:\n%s", width, f)
		}
	}
}

// The line for the one command typed keeps where it comes from and the
// tab key in view, the description cut to the room left with "…": it was
// cut at the width without a mark, and a long description (a custom
// command's first line) pushed the source and the key off it.
func TestCommandHintFitsTheWidth(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	b.info.Commands = []CommandInfo{{Name: "wr", Description: `Write it CALL files__write_file {"path":"/tmp/nu5/proj/c.txt","content":"$1"}`, Source: "user:git", Path: "/u/commands/git/wr.md"}}
	for _, tc := range []struct {
		width int
		typed string
		want  []string
	}{
		{80, "/w", []string{"/wr  Write it", "…", "(user:git) · tab completes"}},
		{40, "/hel", []string{"/help  show", "…", " · tab completes"}},
		{120, "/hel", []string{"/help  show keys and commands · tab completes"}},
	} {
		m, _, _ := newTestModel(t, b, tc.width, 24, Options{})
		typeText(m, tc.typed)
		var got string
		for _, l := range strings.Split(frame(m), "\n") {
			if strings.HasPrefix(l, strings.Fields(tc.want[0])[0]) {
				got = l
			}
		}
		if w := ansi.StringWidth(got); w > tc.width {
			t.Errorf("width %d, %q: line %d wide: %q", tc.width, tc.typed, w, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("width %d, %q: %q not in %q", tc.width, tc.typed, w, got)
			}
		}
	}
}
