package mdterm

import (
	"regexp"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/text"
)

// Table draws a Markdown table (its | rows, the header's rule among them)
// at width: cells rendered as inline Markdown, columns ruled with │ and
// the header underlined with ─┼─, cells wrapped when the table is wider
// than width. Rows that are not a table come back as wrapped text.
func (r *Renderer) Table(src string, width int) []string {
	var rows [][]string
	header := -1
	for _, l := range strings.Split(strings.TrimSpace(src), "\n") {
		cells := splitRow(l)
		if isRule(cells) {
			if header < 0 && len(rows) == 1 {
				header = 0
			}
			continue
		}
		for i, c := range cells {
			cells[i] = r.cell(c, len(rows) == 0)
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		return nil
	}
	cols := 0
	for _, row := range rows {
		cols = max(cols, len(row))
	}
	for i := range rows {
		for len(rows[i]) < cols {
			rows[i] = append(rows[i], "")
		}
	}
	avail := max(width-len(Margin), 10)
	border := lipgloss.NewStyle()
	if r.p.Subtle != nil {
		border = border.Foreground(r.p.Subtle)
	}
	t := table.New().Border(lipgloss.NormalBorder()).BorderStyle(border).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		BorderHeader(header == 0).BorderColumn(true).BorderRow(false).
		StyleFunc(func(int, int) lipgloss.Style { return lipgloss.NewStyle().Padding(0, 1) })
	if header == 0 {
		t = t.Headers(rows[0]...).Rows(rows[1:]...)
	} else {
		t = t.Rows(rows...)
	}
	if natural := ansi.StringWidth(strings.SplitN(t.String(), "\n", 2)[0]); natural > avail {
		t = t.Width(avail).Wrap(true)
	}
	var out []string
	for _, l := range strings.Split(t.String(), "\n") {
		out = append(out, Margin+strings.TrimRight(l, " "))
	}
	return out
}

// cell renders a cell's inline Markdown on one line, bold in the first
// row (the header, when a rule follows it). What would start a block (1.
// or - or #) is escaped: a cell holds only inline text.
func (r *Renderer) cell(src string, bold bool) string {
	if blockStart().MatchString(src) {
		i := strings.IndexAny(src, "#>-+*.)")
		src = src[:i] + `\` + src[i:]
	}
	b := []byte(src)
	w := &walker{r: r, src: b, bold: bold}
	lines := w.blocks(r.parser.Parse(text.NewReader(b)), "", "", 1<<20)
	return strings.TrimSpace(strings.Join(lines, " "))
}

// splitRow cuts a table row into its cells: | separates them, \| is a
// pipe inside one, the outer pipes are optional.
func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	if strings.HasSuffix(l, "|") && !strings.HasSuffix(l, `\|`) {
		l = l[:len(l)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteByte('|')
			i++
		case l[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(l[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// isRule tells whether cells are a header rule (---, :--, --:, :-:).
func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":-") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return len(cells) > 0
}

// blockStart matches a cell that Markdown would read as a block: a
// heading, quote, bullet or numbered item.
// Compiled on first use: package init runs on every start, -p and --help too.
var blockStart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(#{1,6}(\s|$)|>|[-+*](\s|$)|\d{1,9}[.)](\s|$))`) })
