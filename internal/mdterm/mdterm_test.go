package mdterm

import (
	"image/color"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

var (
	red    = color.RGBA{R: 255, A: 255}
	green  = color.RGBA{G: 255, A: 255}
	blue   = color.RGBA{B: 255, A: 255}
	grey   = color.RGBA{R: 128, G: 128, B: 128, A: 255}
	yellow = color.RGBA{R: 255, G: 255, A: 255}
)

// palette gives every token its own colour, so a test can tell them apart.
var palette = Palette{Text: grey, Muted: grey, Subtle: grey, Accent: blue, Secondary: blue, Code: yellow,
	Keyword: red, String: green, Comment: grey, Number: yellow, Type: blue, Func: blue, Added: green, Removed: red}

// sgr is how the renderer writes a foreground colour.
func sgr(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return "38;2;" + itoa(int(r>>8)) + ";" + itoa(int(g>>8)) + ";" + itoa(int(b>>8)) + "m"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func plain(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = ansi.Strip(l)
	}
	return strings.Join(out, "\n")
}

func TestRender(t *testing.T) {
	r := New(palette)
	for _, tc := range []struct {
		name, src string
		width     int
		want      string // the plain text, exactly
	}{
		{"heading without its markers", "## Steps\n\nRun it.", 40, "  Steps\n\n  Run it."},
		{"list items hang under their text", "1. Install the package with the system package manager first.\n2. Run it.", 40,
			"  1. Install the package with the system\n     package manager first.\n  2. Run it."},
		{"nested bullets", "- one\n  - two\n- three", 40, "  • one\n    • two\n  • three"},
		{"loose list keeps its blank lines", "- one\n\n- two", 40, "  • one\n\n  • two"},
		{"quote", "> quoted text that wraps around the line", 24, "  │ quoted text that\n  │ wraps around the\n  │ line"},
		{"link shows where it goes", "see [the docs](https://example.com/docs)", 60, "  see the docs (https://example.com/docs)"},
		{"autolink once", "at <https://x.org>", 60, "  at https://x.org"},
		{"emphasis markers gone", "a **b** *c* `d`", 60, "  a b c d"},
		{"hard break", "one  \ntwo", 60, "  one\n  two"},
		{"escapes and entities", `a \*b\* &amp; &#65;`, 60, "  a *b* & A"},
		{"rule", "a\n\n---\n\nb", 10, "  a\n\n  ────────\n\n  b"},
		{"indented code", "text\n\n    code line\n", 40, "  text\n\n    code line"},
		{"a word longer than the line is cut", strings.Repeat("x", 30), 20, "  " + strings.Repeat("x", 18) + "\n  " + strings.Repeat("x", 12)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := r.Render(tc.src, tc.width)
			if got := plain(lines); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			for _, l := range lines {
				if ansi.StringWidth(l) > tc.width {
					t.Errorf("line wider than %d: %q", tc.width, ansi.Strip(l))
				}
			}
		})
	}
}

func TestRenderStyles(t *testing.T) {
	out := strings.Join(New(palette).Render("# Title\n\na **bold** word and `code`", 60), "\n")
	for _, want := range []string{"\x1b[1;4;" + sgr(blue) + "Title", "\x1b[1;" + sgr(grey) + "bold", sgr(yellow) + "code"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q not in %q", want, out)
		}
	}
	// No palette (NO_COLOR): attributes only.
	out = strings.Join(New(Palette{}).Render("a **bold** `code` [link](https://x.org)\n\n```go\nfunc f() {}\n```", 60), "\n")
	if strings.Contains(out, "38;") {
		t.Errorf("a colour without a palette: %q", out)
	}
	if !strings.Contains(out, "\x1b[1mbold") {
		t.Errorf("bold lost without a palette: %q", out)
	}
}

func TestHighlight(t *testing.T) {
	r := New(palette)
	for _, tc := range []struct {
		name, lang, code string
		want             []string // substrings: a colour then the token
	}{
		{"go", "go", "// say it\nfunc main() { fmt.Println(\"hi\", 42) }",
			[]string{sgr(grey) + "//", sgr(red) + "func", sgr(blue) + "main", sgr(green) + `"hi"`, sgr(yellow) + "42"}},
		{"python triple quotes", "py", "def f():\n    \"\"\"doc\"\"\"\n    return None",
			[]string{sgr(red) + "def", sgr(green) + `"""doc"""`, sgr(red) + "None"}},
		{"shell variables and comments", "bash", "echo $HOME # where", []string{sgr(blue) + "$HOME", sgr(grey) + "#"}},
		{"sql in any case", "sql", "SELECT id FROM t", []string{sgr(red) + "SELECT", sgr(red) + "FROM"}},
		{"block comment over lines", "c", "/* a\nb */ int x;", []string{sgr(grey) + "/*", sgr(grey) + "b", sgr(blue) + "int"}},
		{"diff by line", "diff", "@@ -1 +1 @@\n-old\n+new", []string{sgr(blue) + "@@", sgr(red) + "-old", sgr(green) + "+new"}},
		{"fence info after the language", "go {linenos=true}", "return", []string{sgr(red) + "return"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := r.Highlight(tc.code, tc.lang)
			if len(lines) != strings.Count(tc.code, "\n")+1 {
				t.Fatalf("%d lines for %d", len(lines), strings.Count(tc.code, "\n")+1)
			}
			if got := plain(lines); got != tc.code {
				t.Errorf("text changed: %q", got)
			}
			out := strings.Join(lines, "\n")
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("%q not in %q", w, out)
				}
			}
		})
	}
	// A language it does not know: the text, in the body's colour only.
	out := strings.Join(r.Highlight("func x", "brainfuck"), "")
	if strings.Contains(out, sgr(red)) || ansi.Strip(out) != "func x" {
		t.Errorf("unknown language: %q", out)
	}
}

func TestTable(t *testing.T) {
	r := New(palette)
	got := plain(r.Table("| day | high |\n|---|--:|\n| Thu | **14** |\n| a \\| b | 1. |", 40))
	want := "   day   │ high\n  ───────┼──────\n   Thu   │ 14\n   a | b │ 1."
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Wider than the width: cells wrap, no line passes it.
	long := "| a | b |\n|---|---|\n| " + strings.Repeat("word ", 12) + "| " + strings.Repeat("other ", 12) + "|"
	lines := r.Table(long, 40)
	if len(lines) < 4 {
		t.Errorf("a wide table did not wrap:\n%s", plain(lines))
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > 40 {
			t.Errorf("line wider than 40: %q", ansi.Strip(l))
		}
	}
}
