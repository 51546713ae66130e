package app

import (
	"bytes"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/charmbracelet/x/ansi"
)

// The tables and notes of agent mcp list, agent tools and agent tools
// search fit the terminal they are printed on: given its width, a table's
// lines are cut with an ellipsis (the last column, a description or a
// detail, goes first) and a note is wrapped between words. A terminal
// would otherwise wrap a wide row into the next one. Width 0 (not a
// terminal) prints every field whole, for scripts.

// lineCutter cuts each line written through it to width columns.
type lineCutter struct {
	w     io.Writer
	width int
	buf   []byte
}

func cutLines(w io.Writer, width int) *lineCutter { return &lineCutter{w: w, width: width} }

func (c *lineCutter) Write(p []byte) (int, error) {
	if c.width <= 0 {
		return c.w.Write(p)
	}
	c.buf = append(c.buf, p...)
	for {
		i := bytes.IndexByte(c.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		if err := c.line(c.buf[:i], "\n"); err != nil {
			return 0, err
		}
		c.buf = c.buf[i+1:]
	}
}

func (c *lineCutter) line(b []byte, end string) error {
	l := string(b)
	if ansi.StringWidth(l) > c.width {
		l = ansi.Truncate(l, c.width, "…")
	}
	_, err := io.WriteString(c.w, l+end)
	return err
}

// Flush writes a last line without a line break.
func (c *lineCutter) Flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	err := c.line(c.buf, "")
	c.buf = c.buf[:0]
	return err
}

// wrapNote wraps a note (a sentence, not a table row) to width at its
// spaces only (a command's --flag stays whole); a word wider than width
// (a long path) stays whole on its own line.
func wrapNote(s string, width int) string {
	if width <= 0 || ansi.StringWidth(s) <= width {
		return s
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line, lw := "", 0
		for _, word := range strings.Fields(para) {
			ww := ansi.StringWidth(word)
			switch {
			case lw == 0:
				line, lw = word, ww
			case lw+1+ww <= width:
				line, lw = line+" "+word, lw+1+ww
			default:
				out = append(out, line)
				line, lw = word, ww
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// writeTable prints head and rows aligned in columns, as tabwriter does.
// On a terminal too narrow for a row (width > 0), the last column (a
// detail: a server's command, an error, a problem) goes on its own line
// under its row, indented and wrapped: cut, it would lose what it often
// says to do ("set GITHUB_TOKEN or …"). Piped, the table is whole.
func writeTable(w io.Writer, width int, head []string, rows [][]string) error {
	render := func(cols int) []string {
		var b bytes.Buffer
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, r := range append([][]string{head}, rows...) {
			_, _ = io.WriteString(tw, strings.Join(r[:cols], "\t")+"\n")
		}
		_ = tw.Flush()
		return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	}
	lines := render(len(head))
	fits := true
	for _, l := range lines {
		fits = fits && (width <= 0 || ansi.StringWidth(l) <= width)
	}
	if fits {
		_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
		return err
	}
	const indent = "    "
	cut := cutLines(w, width)
	for i, l := range render(len(head) - 1) {
		if _, err := io.WriteString(cut, l+"\n"); err != nil {
			return err
		}
		if i == 0 {
			continue
		}
		if last := rows[i-1][len(head)-1]; last != "" {
			wrapped := wrapNote(last, max(width-len(indent), 20))
			if _, err := io.WriteString(w, indent+strings.ReplaceAll(wrapped, "\n", "\n"+indent)+"\n"); err != nil {
				return err
			}
		}
	}
	return nil
}
