package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A bare URL wider than the row: inline it is one row holding the whole
// URL at column 0 (the terminal wraps it softly); full screen it is cut
// into rows at column 0, each a link to the whole URL. Text around it and
// short URLs wrap as before.
func TestNoticeURLRows(t *testing.T) {
	u := "https://auth.example.com/authorize?client_id=abc&state=" + strings.Repeat("x", 60)
	plain := func(s ...string) string { return strings.Join(s, "") }
	for _, tc := range []struct {
		name       string
		fullScreen bool
		want       []string
	}{
		{"inline", false, []string{"  opening in your browser:", u}},
		{"full screen", true, []string{"  opening in your browser:", u[:40], u[40:80], u[80:]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &chat{width: 40, fullScreen: tc.fullScreen}
			got := c.textLines("opening in your browser:\n  "+u, "  ", plain)
			var stripped []string
			for _, l := range got {
				stripped = append(stripped, ansi.Strip(l))
				if !strings.HasPrefix(ansi.Strip(l), "  ") && !strings.Contains(l, ansi.SetHyperlink(u)) {
					t.Errorf("row %q is not a link to the whole URL", l)
				}
			}
			if strings.Join(stripped, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("rows:\n%q\nwant\n%q", stripped, tc.want)
			}
		})
	}
	c := &chat{width: 40}
	if got := c.textLines("see https://x.io/a b", "  ", plain); len(got) != 1 || got[0] != "  see https://x.io/a b" {
		t.Errorf("a short line changed: %q", got)
	}
}
