// Package mdterm renders Markdown for a terminal: styled lines wrapped to
// a width, tables with box-drawing rules, and code highlighted by a small
// lexer of its own (highlight.go).
//
// It replaces glamour in the TUI. Go runs the init of every package a
// binary links, whatever the command, and glamour brought chroma (its
// lexer registry parses 279 XML lexers at init), bluemonday, gorilla/css
// and goldmark's extensions: about 7 MB allocated and 5 MB of the binary's
// pages made resident before `agent -p` or any subcommand read a flag.
// This package parses with goldmark's core parser only (about 0.3 MB at
// init) and draws with lipgloss, which the TUI links anyway.
package mdterm

import (
	"image/color"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Palette is the colours Markdown is drawn with; a nil colour is the
// terminal's default (the plain theme, NO_COLOR: attributes only).
type Palette struct {
	Text, Muted, Subtle, Accent, Secondary, Code color.Color
	// Code tokens.
	Keyword, String, Comment, Number, Type, Func color.Color
	// Diff lines.
	Added, Removed color.Color
}

// Margin is the left margin of every rendered line.
const Margin = "  "

// Renderer renders Markdown with one palette. It is not safe for
// concurrent use (the TUI renders from its update loop).
type Renderer struct {
	p      Palette
	parser parser.Parser
}

// New returns a renderer drawing with p.
func New(p Palette) *Renderer {
	return &Renderer{p: p, parser: parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)}
}

// Render lays out src at width: paragraphs, headings (without their #
// markers), lists with their items' lines hanging under the text, quotes,
// rules, code. Every line starts with Margin and is at most width cells
// wide (a word longer than the line is cut).
func (r *Renderer) Render(src string, width int) []string {
	b := []byte(src)
	doc := r.parser.Parse(text.NewReader(b))
	w := &walker{r: r, src: b}
	return w.blocks(doc, Margin, Margin, max(width, len(Margin)+4))
}

// style is the inline state a span is drawn with.
type style struct {
	bold, italic, underline, strike bool
	fg                              color.Color
}

// render draws t with s, each word on its own (spaces between them
// unstyled), so that a line wrapped at a space, and given a prefix of its
// own, keeps the style of its words.
func (s style) render(t string) string {
	if t == "" || s == (style{}) {
		return t
	}
	var a ansi.Style
	if s.bold {
		a = a.Bold()
	}
	if s.italic {
		a = a.Italic(true)
	}
	if s.underline {
		a = a.Underline(true)
	}
	if s.strike {
		a = a.Strikethrough(true)
	}
	if s.fg != nil {
		a = a.ForegroundColor(s.fg)
	}
	if len(a) == 0 {
		return t
	}
	var b strings.Builder
	for t != "" {
		sp := strings.IndexByte(t, ' ')
		if sp < 0 {
			sp = len(t)
		}
		if sp > 0 {
			b.WriteString(a.Styled(t[:sp]))
		}
		end := sp
		for end < len(t) && t[end] == ' ' {
			end++
		}
		b.WriteString(t[sp:end])
		t = t[end:]
	}
	return b.String()
}

type walker struct {
	r   *Renderer
	src []byte
	// bold draws paragraphs bold (a table's header cells).
	bold bool
}

// blocks renders n's children, one blank line between blocks; first is
// the prefix of the first line, rest of every other.
func (w *walker) blocks(n ast.Node, first, rest string, width int) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		p := first
		if len(out) > 0 {
			p = rest
			if !tightItem(c) {
				out = append(out, strings.TrimRight(rest, " "))
			}
		}
		out = append(out, w.block(c, p, rest, width)...)
	}
	return out
}

// tightItem tells whether c follows its sibling without a blank line: the
// blocks of a tight list's item.
func tightItem(c ast.Node) bool {
	if _, ok := c.(*ast.TextBlock); ok {
		return true
	}
	if l, ok := c.Parent().(*ast.List); ok && l.IsTight {
		return true
	}
	if _, ok := c.Parent().(*ast.ListItem); ok {
		if l, ok := c.Parent().Parent().(*ast.List); ok && l.IsTight {
			return true
		}
	}
	return false
}

func (w *walker) block(n ast.Node, first, rest string, width int) []string {
	p := w.r.p
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return w.wrap(w.inline(n, style{fg: p.Text, bold: w.bold}), first, rest, width)
	case *ast.Heading:
		s := style{bold: true, fg: p.Accent}
		if n.Level == 1 {
			s.underline = true
		}
		return w.wrap(w.inline(n, s), first, rest, width)
	case *ast.ThematicBreak:
		return []string{first + style{fg: p.Subtle}.render(strings.Repeat("─", min(max(width-ansi.StringWidth(first), 3), 40)))}
	case *ast.Blockquote:
		bar := style{fg: p.Subtle}.render("│ ")
		return w.blocks(n, first+bar, rest+bar, width)
	case *ast.List:
		var out []string
		num := n.Start
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			marker := "• "
			if n.IsOrdered() {
				marker = strconv.Itoa(num) + string(n.Marker) + " "
				num++
			}
			if len(out) > 0 {
				if !n.IsTight {
					out = append(out, strings.TrimRight(rest, " "))
				}
				first = rest
			}
			pad := strings.Repeat(" ", ansi.StringWidth(marker))
			out = append(out, w.blocks(c, first+style{fg: p.Muted}.render(marker), rest+pad, width)...)
		}
		return out
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var code strings.Builder
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			code.Write(seg.Value(w.src))
		}
		lang := ""
		if f, ok := n.(*ast.FencedCodeBlock); ok {
			lang = string(f.Language(w.src))
		}
		var out []string
		for i, l := range w.r.Highlight(strings.TrimRight(code.String(), "\n"), lang) {
			pre := rest
			if i == 0 {
				pre = first
			}
			out = append(out, ansi.Truncate(pre+"  "+l, width, "…"))
		}
		return out
	case *ast.HTMLBlock:
		var raw strings.Builder
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			raw.Write(seg.Value(w.src))
		}
		return w.wrap(style{fg: p.Muted}.render(strings.TrimRight(raw.String(), "\n")), first, rest, width)
	default:
		if n.FirstChild() != nil {
			return w.blocks(n, first, rest, width)
		}
		return nil
	}
}

// wrap word-wraps styled text (hard breaks are newlines in it) to the
// width left after the prefixes.
func (w *walker) wrap(s, first, rest string, width int) []string {
	avail := max(width-max(ansi.StringWidth(first), ansi.StringWidth(rest)), 8)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		for _, l := range strings.Split(ansi.Wrap(para, avail, ""), "\n") {
			pre := rest
			if len(out) == 0 {
				pre = first
			}
			out = append(out, pre+strings.TrimRight(l, " "))
		}
	}
	return out
}

// inline renders n's inline children with s.
func (w *walker) inline(n ast.Node, s style) string {
	var b strings.Builder
	w.spans(&b, n, s)
	return b.String()
}

func (w *walker) spans(b *strings.Builder, n ast.Node, s style) {
	p := w.r.p
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			// The segment is the source: backslash escapes and entity
			// references are resolved here, as goldmark's HTML writer does.
			v := c.Value(w.src)
			if !c.IsRaw() {
				v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
			}
			b.WriteString(s.render(string(v)))
			switch {
			case c.HardLineBreak():
				b.WriteByte('\n')
			case c.SoftLineBreak():
				b.WriteByte(' ')
			}
		case *ast.String:
			b.WriteString(s.render(string(c.Value)))
		case *ast.CodeSpan:
			var t strings.Builder
			for g := c.FirstChild(); g != nil; g = g.NextSibling() {
				if tx, ok := g.(*ast.Text); ok {
					t.Write(tx.Value(w.src))
				}
			}
			cs := s
			cs.fg = p.Code
			b.WriteString(cs.render(t.String()))
		case *ast.Emphasis:
			es := s
			if c.Level >= 2 {
				es.bold = true
			} else {
				es.italic = true
			}
			w.spans(b, c, es)
		case *ast.Link:
			ls := s
			ls.underline, ls.fg = true, p.Secondary
			before := b.Len()
			w.spans(b, c, ls)
			if dest := string(c.Destination); dest != "" && !strings.Contains(b.String()[before:], dest) {
				b.WriteString(style{fg: p.Muted}.render(" (" + dest + ")"))
			}
		case *ast.AutoLink:
			ls := s
			ls.underline, ls.fg = true, p.Secondary
			b.WriteString(ls.render(string(c.URL(w.src))))
		case *ast.Image:
			w.spans(b, c, s)
			if dest := string(c.Destination); dest != "" {
				b.WriteString(style{fg: p.Muted}.render(" (" + dest + ")"))
			}
		case *ast.RawHTML:
			segs := c.Segments
			for i := 0; i < segs.Len(); i++ {
				seg := segs.At(i)
				b.WriteString(style{fg: p.Muted}.render(string(seg.Value(w.src))))
			}
		default:
			w.spans(b, c, s)
		}
	}
}
