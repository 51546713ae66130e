package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// A long URL in a notice (a sign-in URL) must come out of the terminal's
// copy exactly as it is. Wrapped by the chat, each row after the first was
// indented, and a copy had spaces and line breaks inside the URL. So a line
// that is a bare URL too long for the row is left to the terminal: inline,
// it is printed whole at column 0 and the terminal wraps it softly (a
// selection joins it again); full screen, where the program owns every
// cell, it is cut into rows at column 0. Either way it is an OSC 8 link to
// the whole URL, which terminals that know it open or copy whole.

// bareURL is line's URL when the line holds nothing else: http(s), printable
// ASCII without spaces (so it cannot end the OSC 8 sequence it goes in).
func bareURL(line string) string {
	u := strings.TrimSpace(line)
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return ""
	}
	for i := 0; i < len(u); i++ {
		if u[i] <= ' ' || u[i] > '~' {
			return ""
		}
	}
	return u
}

// textLines renders text as wrapLines does, each row after indent and in
// style, but a bare URL wider than the row as linkLines does.
func (c *chat) textLines(text, indent string, style func(...string) string) []string {
	w := max(c.width-len(indent), 1)
	var out []string
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if u := bareURL(line); u != "" && len(indent)+len(u) > c.width {
			out = append(out, linkLines(u, c.width, !c.fullScreen, style)...)
			continue
		}
		for _, l := range wrapLines(line, w) {
			out = append(out, indent+style(l))
		}
	}
	return out
}

// linkLines is the URL u as rows of width: one row holding all of it when
// the terminal wraps it (whole), else cut at width, every row at column 0.
func linkLines(u string, width int, whole bool, style func(...string) string) []string {
	link := func(s string) string { return ansi.SetHyperlink(u) + style(s) + ansi.ResetHyperlink() }
	if whole || width < 1 {
		return []string{link(u)}
	}
	var out []string
	for rest := u; len(rest) > 0; {
		n := min(width, len(rest))
		out = append(out, link(rest[:n]))
		rest = rest[n:]
	}
	return out
}
