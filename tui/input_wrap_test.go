package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// inputBoxText is the text the input box shows, its rows joined by spaces,
// and how many rows it has.
func inputBoxText(t *testing.T, m *Model) (string, int) {
	t.Helper()
	lines := strings.Split(ansi.Strip(m.renderInline()), "\n")
	var rows []string
	in := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "╭"):
			in, rows = true, nil
		case strings.HasPrefix(l, "╰"):
			in = false
		case in:
			rows = append(rows, strings.TrimSpace(strings.Trim(l, "│")))
		}
	}
	return strings.Join(strings.Fields(strings.Join(rows, " ")), " "), len(rows)
}

// The input box shows the whole draft, from its first word, however the
// textarea wraps it and whatever the terminal's width was when it was typed.
// It counted cells per row while the textarea wraps at word boundaries, so
// a draft could need a row more than the box had (its first row scrolled
// out of sight); and a resize laid the box out for the old width, so
// narrowing hid the first row and widening left it hidden above a blank one.
func TestInputShowsTheWholeDraftAtAnyWidth(t *testing.T) {
	t.Parallel()
	draft := "this is a long draft that the user is typing and it should wrap across lines in the narrow terminal without loss"
	for _, tc := range []struct {
		name          string
		typedAt, then int
		text          string
		rows          int
	}{
		{"words wrap a row later than cells", 60, 60, draft, 3},
		{"narrowed", 100, 60, draft, 3},
		{"widened after scrolling", 60, 100, draft, 2},
		{"narrowed twice", 100, 40, draft, 4},
		{"a newline and a wrap", 100, 60, "first line\n" + draft, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := newInlineModel(t, newFakeBackend(), tc.typedAt, 30, Options{})
			for i, part := range strings.Split(tc.text, "\n") {
				if i > 0 {
					m.Update(tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl})
				}
				typeText(m, part)
			}
			if tc.then != tc.typedAt {
				m.Update(tea.WindowSizeMsg{Width: tc.then, Height: 30})
			}
			want := strings.Join(strings.Fields(tc.text), " ")
			if got, rows := inputBoxText(t, m); got != want || rows != tc.rows {
				t.Fatalf("the box shows %d rows, want %d:\n%q\nwant\n%q", rows, tc.rows, got, want)
			}
			// The cursor stayed at the end of the draft.
			typeText(m, "!")
			if got, _ := inputBoxText(t, m); !strings.HasSuffix(got, "loss!") || !strings.HasPrefix(got, strings.Fields(tc.text)[0]) {
				t.Fatalf("typed after the resize, the box shows %q", got)
			}
		})
	}
}
