package tui

import (
	"regexp"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/internal/mdterm"
	"github.com/agent-dev/agent/themes"
)

// markdown renders an answer's Markdown. internal/mdterm styles the
// blocks (glamour did, and linked chroma's lexer registry, bluemonday and
// more, whose init every command paid for); this file lays them out the
// way a terminal reader wants:
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
	r  *mdterm.Renderer
	// blocks caches rendered blocks by kind, width and text: while an
	// answer streams only its last block changes.
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

func newMarkdown(st *themes.Styles) *markdown {
	p := st.Palette
	return &markdown{st: st, r: mdterm.New(mdterm.Palette{
		Text: p.Text, Muted: p.Muted, Subtle: p.Subtle, Accent: p.Accent, Secondary: p.Secondary, Code: p.Warning,
		Keyword: p.Secondary, String: p.Success, Comment: p.Muted, Number: p.Warning, Type: p.Accent, Func: p.User,
		Added: p.Success, Removed: p.Error,
	})}
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

// Compiled on first use: package init runs on every start, -p and --help too.
var fenceRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^ {0,3}(```+|~~~+)\\s*([^`\\s]*)") })

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
		if f := fenceRE().FindStringSubmatch(l); f != nil {
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
			add(m.cached(b, width, func() []string { return m.r.Table(b.text, width) }))
		default:
			if strings.TrimSpace(b.text) == "" {
				continue
			}
			add(m.cached(b, width, func() []string { return m.r.Render(b.text, width) }))
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

// codeBlock frames code with its language in the top border. Lines too
// long for the frame continue on the next row, inside it, after ↪.
func (m *markdown) codeBlock(b mdBlock, width int) []string {
	st := m.st
	// A tab has no width a frame can count on.
	code := strings.ReplaceAll(strings.TrimRight(b.text, "\n"), "\t", "    ")
	var lines []string
	if strings.TrimSpace(code) != "" {
		lines = m.r.Highlight(code, b.lang)
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
