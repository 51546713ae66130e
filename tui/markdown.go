package tui

import (
	"reflect"
	"regexp"
	"strings"

	"charm.land/glamour/v2"
	gstyles "charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/themes"
)

// markdown renders an answer's Markdown. Glamour styles the blocks; this
// file lays them out the way a terminal reader wants:
//   - code blocks are framed, labelled with their language and never
//     wrapped back to the left margin (a long line continues inside the
//     frame, marked ↪), so what is copied stays code;
//   - list items wrap under their text (a hanging indent), not under the
//     number;
//   - heading markers (##) are not shown: the heading style says it;
//   - a table still streaming is held back until its last row arrived, so
//     it is drawn once instead of as raw | rows that then jump.
type markdown struct {
	st *themes.Styles
	// wide renders without wrapping (the wrapping is done here); table
	// renderers are kept per width: building one costs far more than
	// rendering a short message.
	wide   *glamour.TermRenderer
	tables map[int]*glamour.TermRenderer
	// blocks caches rendered blocks by kind, width and text: while an
	// answer streams only its last block changes, and glamour is slow.
	blocks map[blockKey][]string
}

type blockKey struct {
	kind       blockKind
	width, num int
	open       bool
	lang, text string
}

// maxCachedBlocks bounds the block cache; it is dropped whole when full.
const maxCachedBlocks = 2000

func (m *markdown) cached(b mdBlock, width int, render func() []string) []string {
	k := blockKey{b.kind, width, b.num, b.open, b.lang, b.text}
	if ls, ok := m.blocks[k]; ok {
		return ls
	}
	if m.blocks == nil || len(m.blocks) >= maxCachedBlocks {
		m.blocks = map[blockKey][]string{}
	}
	ls := render()
	m.blocks[k] = ls
	return ls
}

// noWrap is the word-wrap glamour gets for blocks wrapped here.
const noWrap = 4000

func newMarkdown(st *themes.Styles) *markdown {
	return &markdown{st: st, tables: map[int]*glamour.TermRenderer{}}
}

// styleConfig is the theme's glamour style without heading markers.
func (m *markdown) styleConfig() glamour.TermRendererOption {
	base, ok := gstyles.DefaultStyles[m.st.Palette.Glamour]
	if !ok {
		base = &gstyles.DarkStyleConfig
	}
	cfg := *base
	for _, h := range []*string{&cfg.H2.Prefix, &cfg.H3.Prefix, &cfg.H4.Prefix, &cfg.H5.Prefix, &cfg.H6.Prefix} {
		*h = ""
	}
	if m.st.Palette.Name == "plain" {
		// NO_COLOR: glamour v2 always writes its palette (grey 252 for the
		// body, invisible on a light terminal) and not every path to the
		// terminal downsamples it, so the colours go here, at the source.
		// Bold, italic and underline stay.
		withoutColour(reflect.ValueOf(&cfg).Elem())
	}
	return glamour.WithStyles(cfg)
}

// withoutColour clears every Color and BackgroundColor of a glamour style
// config, and its code blocks' Chroma theme, in place.
func withoutColour(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			withoutColour(v.Elem())
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				continue
			}
			switch t.Field(i).Name {
			case "Color", "BackgroundColor", "Chroma":
				if f.Kind() == reflect.Pointer {
					f.SetZero()
					continue
				}
			}
			if f.Kind() == reflect.Pointer && !f.IsNil() {
				// The standard configs share pointers between elements;
				// copy before clearing so the package's own config stays.
				c := reflect.New(f.Elem().Type())
				c.Elem().Set(f.Elem())
				f.Set(c)
			}
			withoutColour(f)
		}
	}
}

func (m *markdown) renderer(width int) *glamour.TermRenderer {
	if width == noWrap && m.wide != nil {
		return m.wide
	}
	if r := m.tables[width]; r != nil {
		return r
	}
	r, err := glamour.NewTermRenderer(m.styleConfig(), glamour.WithWordWrap(width))
	if err != nil {
		return nil
	}
	if width == noWrap {
		m.wide = r
	} else {
		m.tables[width] = r
	}
	return r
}

// glamourLines renders one block and trims the blank lines and padding
// glamour adds around it.
func (m *markdown) glamourLines(text string, width int) []string {
	r := m.renderer(width)
	if r == nil {
		return wrapLines(text, width)
	}
	out, err := r.Render(text)
	if err != nil {
		return wrapLines(text, width)
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = trimRightCells(l)
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// trimRightCells drops trailing blank cells of a styled line (glamour pads
// every line to its wrap width).
func trimRightCells(l string) string {
	plain := ansi.Strip(l)
	keep := ansi.StringWidth(strings.TrimRight(plain, " \u00a0"))
	if keep == ansi.StringWidth(plain) {
		return l
	}
	return ansi.Truncate(l, keep, "") + ansi.ResetStyle
}

type blockKind int

const (
	blockText blockKind = iota
	blockCode
	blockTable
)

type mdBlock struct {
	kind blockKind
	text string
	lang string
	// open: a code fence or table the stream has not closed yet.
	open bool
	// num is the code block's number in the answer (/copy N), 0 unshown.
	num int
}

var fenceRE = regexp.MustCompile("^ {0,3}(```+|~~~+)\\s*([^`\\s]*)")

// splitBlocks cuts Markdown into code fences, tables and the rest.
func splitBlocks(text string) []mdBlock {
	var out []mdBlock
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, mdBlock{kind: blockText, text: strings.Join(cur, "\n")})
			cur = nil
		}
	}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if f := fenceRE.FindStringSubmatch(l); f != nil {
			flush()
			b := mdBlock{kind: blockCode, lang: f[2], open: true}
			var code []string
			for i++; i < len(lines); i++ {
				if t := strings.TrimSpace(lines[i]); strings.HasPrefix(t, f[1]) && strings.Trim(t, f[1][:1]) == "" {
					b.open = false
					break
				}
				code = append(code, lines[i])
			}
			b.text = strings.Join(code, "\n")
			out = append(out, b)
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), "|") {
			flush()
			b := mdBlock{kind: blockTable, open: true}
			var rows []string
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
				rows = append(rows, lines[i])
			}
			// A table is complete once a line that is not a row follows.
			b.open = i >= len(lines) || (i == len(lines)-1 && lines[i] == "")
			i--
			b.text = strings.Join(rows, "\n")
			out = append(out, b)
			continue
		}
		cur = append(cur, l)
	}
	flush()
	return out
}

// render lays out text at width. streaming holds back a table whose rows
// are still arriving.
func (m *markdown) render(text string, width int) []string { return m.renderStream(text, width, false) }

func (m *markdown) renderStream(text string, width int, streaming bool) []string {
	width = max(width, 10)
	var out []string
	add := func(ls []string) {
		if len(ls) == 0 {
			return
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, ls...)
	}
	blocks := splitBlocks(text)
	codes, n := 0, 0
	for _, b := range blocks {
		if b.kind == blockCode {
			codes++
		}
	}
	for _, b := range blocks {
		switch b.kind {
		case blockCode:
			n++
			if codes > 1 {
				// Numbered for /copy N when there is more than one.
				b.num = n
			}
			add(m.cached(b, width, func() []string { return m.codeBlock(b, width) }))
		case blockTable:
			if streaming && b.open {
				rows := max(strings.Count(b.text, "\n")+1-2, 0) // header and rule
				add([]string{m.st.Muted.Render("  ⋯ table, " + plural(rows, "row") + " so far")})
				continue
			}
			add(m.cached(b, width, func() []string { return m.glamourLines(b.text, width-2) }))
		default:
			if strings.TrimSpace(b.text) == "" {
				continue
			}
			add(m.cached(b, width, func() []string { return hangIndent(m.glamourLines(b.text, width), width) }))
		}
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return itoa(n) + " " + word + "s"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// listMarkerRE finds where a line's text starts: after its indentation and
// a list marker, if any.
var listMarkerRE = regexp.MustCompile(`^(\s*)((\d+[.)]|[•*+-]|\[[ ✓x]\])\s+)?`)

// hangIndent moves the lines glamour wrapped under a list item's marker
// to under its text: an item's lines are joined again and wrapped with a
// hanging indent.
func hangIndent(lines []string, width int) []string {
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		plain := ansi.Strip(l)
		m := listMarkerRE.FindStringSubmatch(plain)
		if m == nil || m[2] == "" {
			out = append(out, l)
			continue
		}
		indent := len(m[1])
		item := l
		for i+1 < len(lines) {
			next := ansi.Strip(lines[i+1])
			lead := len(next) - len(strings.TrimLeft(next, " "))
			if strings.TrimSpace(next) == "" || lead != indent {
				break
			}
			if nm := listMarkerRE.FindStringSubmatch(next); nm != nil && nm[2] != "" {
				break
			}
			item += " " + ansi.Cut(lines[i+1], lead, ansi.StringWidth(lines[i+1]))
			i++
		}
		out = append(out, hangWrap(item, width)...)
	}
	return out
}

// hangWrap wraps a styled line to width; continuation lines start under
// the text, after the indentation and the list marker.
func hangWrap(l string, width int) []string {
	if ansi.StringWidth(l) <= width {
		return []string{l}
	}
	plain := ansi.Strip(l)
	hang := ansi.StringWidth(listMarkerRE.FindString(plain))
	if hang > width/2 {
		hang = 0
	}
	head := ansi.Cut(l, 0, hang)
	rest := ansi.Cut(l, hang, ansi.StringWidth(l))
	wrapped := strings.Split(ansi.Wrap(rest, width-hang, ""), "\n")
	out := make([]string, len(wrapped))
	pad := strings.Repeat(" ", hang)
	for i, w := range wrapped {
		if i == 0 {
			out[i] = head + w
		} else {
			out[i] = pad + strings.TrimLeft(w, " ")
		}
	}
	return out
}

// codeBlock frames code with its language in the top border. Lines too
// long for the frame continue on the next row, inside it, after ↪.
func (m *markdown) codeBlock(b mdBlock, width int) []string {
	st := m.st
	code := strings.TrimRight(b.text, "\n")
	var lines []string
	if strings.TrimSpace(code) != "" {
		// Glamour highlights; its indentation (margin plus block indent)
		// is taken off again.
		fence := "```" + b.lang + "\n" + code + "\n```"
		widest := 0
		for _, l := range strings.Split(code, "\n") {
			widest = max(widest, ansi.StringWidth(l))
		}
		// Wide enough that glamour wraps nothing; no wider (it pads
		// every line to this width).
		lines = m.glamourLines(fence, min(widest+16, noWrap))
		if len(lines) != strings.Count(code, "\n")+1 {
			lines = strings.Split(code, "\n")
		} else {
			indent := 0
			for i, l := range lines {
				p := ansi.Strip(l)
				n := len(p) - len(strings.TrimLeft(p, " "))
				if i == 0 || n < indent {
					indent = n
				}
			}
			if strings.TrimSpace(ansi.Strip(lines[0])) != "" {
				orig := strings.Split(code, "\n")[0]
				indent = min(indent, ansi.StringWidth(ansi.Strip(lines[0]))-ansi.StringWidth(strings.TrimLeft(orig, " \t"))-(len(orig)-len(strings.TrimLeft(orig, " \t"))))
			}
			for i, l := range lines {
				lines[i] = ansi.Cut(l, max(indent, 0), ansi.StringWidth(l))
			}
		}
	}
	inner := max(width-6, 4) // margin, borders, padding
	widest := 0
	for _, l := range lines {
		widest = max(widest, ansi.StringWidth(l))
	}
	inner = min(inner, max(widest, ansi.StringWidth(b.lang)+2, 10))
	border := st.Subtle
	label := b.lang
	if b.num > 0 {
		label = strings.TrimSpace(label + " · " + itoa(b.num))
		label = strings.TrimPrefix(label, "· ")
	}
	if label != "" {
		label = " " + label + " "
	}
	top := "  " + border.Render("╭─") + st.Muted.Render(label) + border.Render(strings.Repeat("─", max(inner+1-ansi.StringWidth(label), 0))+"╮")
	out := []string{top}
	row := func(s string) string {
		pad := inner - ansi.StringWidth(s)
		return "  " + border.Render("│") + " " + s + strings.Repeat(" ", max(pad, 0)) + " " + border.Render("│")
	}
	for _, l := range lines {
		if ansi.StringWidth(l) <= inner {
			out = append(out, row(l))
			continue
		}
		for i, part := range strings.Split(ansi.Hardwrap(l, inner-2, false), "\n") {
			if i == 0 {
				// The first row takes the full width minus the marker
				// column kept for continuations.
				out = append(out, row(part))
				continue
			}
			out = append(out, row(st.Subtle.Render("↪ ")+part))
		}
	}
	if b.open {
		out = append(out, row(st.Muted.Render("…")))
	}
	out = append(out, "  "+border.Render("╰"+strings.Repeat("─", inner+2)+"╯"))
	return out
}
