package mdterm

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// lexer is how one language family looks to the highlighter: comments,
// string quotes and words. It is a scanner, not a grammar: enough to
// colour what a reader scans a snippet for (keywords, strings, comments,
// numbers, types, calls), for the languages answers show most.
type lexer struct {
	line     []string    // line comment openers
	block    [][2]string // block comment open and close
	quotes   string      // string delimiters; a backslash escapes
	raw      string      // delimiters without escapes (Go's `)
	triple   bool        // """ and ''' strings (Python)
	keywords map[string]bool
	types    map[string]bool
	// caseless: keywords match in any case (SQL).
	caseless bool
	// vars: $NAME is a variable (shells).
	vars bool
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

const cTypes = "bool char short int long float double void unsigned signed size_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t auto const static"

// lexers by the names and aliases a fence gives, built on first use
// rather than at init.
var lexers = sync.OnceValue(buildLexers)

func lexerFor(lang string) *lexer {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if i := strings.IndexAny(lang, " {,"); i >= 0 {
		lang = lang[:i]
	}
	return lexers()[lang]
}

func buildLexers() map[string]*lexer {
	slashes := []string{"//"}
	cBlock := [][2]string{{"/*", "*/"}}
	hash := []string{"#"}
	m := map[string]*lexer{}
	add := func(l *lexer, names ...string) {
		for _, n := range names {
			m[n] = l
		}
	}
	add(&lexer{line: slashes, block: cBlock, quotes: `"'`, raw: "`",
		keywords: words("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false iota"),
		types:    words("bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any comparable")},
		"go", "golang")
	add(&lexer{line: hash, quotes: `"'`, triple: true,
		keywords: words("and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield None True False self match case"),
		types:    words("int float str bool list dict set tuple bytes object type Exception")},
		"python", "py", "python3", "py3")
	js := &lexer{line: slashes, block: cBlock, quotes: `"'`, raw: "`",
		keywords: words("async await break case catch class const continue debugger default delete do else export extends finally for from function if import in instanceof let new of return static super switch this throw try typeof var void while with yield null undefined true false interface type enum implements private public protected readonly as"),
		types:    words("string number boolean any unknown never object Array Promise Map Set Record")}
	add(js, "javascript", "js", "jsx", "typescript", "ts", "tsx", "mjs", "cjs", "node")
	add(&lexer{line: slashes, block: cBlock, quotes: `"`,
		keywords: words("as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while"),
		types:    words("i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String Vec Option Result Box")},
		"rust", "rs")
	add(&lexer{line: slashes, block: cBlock, quotes: `"'`,
		keywords: words("break case continue default do else enum extern for goto if return sizeof struct switch typedef union volatile while class namespace template typename public private protected virtual new delete this true false nullptr using try catch throw include define"),
		types:    words(cTypes + " std string vector")},
		"c", "h", "cpp", "c++", "cc", "hpp", "cxx", "objc")
	add(&lexer{line: slashes, block: cBlock, quotes: `"'`,
		keywords: words("abstract break case catch class continue default do else enum extends final finally for if implements import instanceof interface new package private protected public return static super switch synchronized this throw throws try var void while true false null fun val when object override data sealed func let guard struct protocol extension namespace using async await"),
		types:    words("boolean byte char double float int long short String Integer Object List Map Int Long Double Boolean Unit Any")},
		"java", "kotlin", "kt", "scala", "swift", "csharp", "cs", "c#", "dart")
	sh := &lexer{line: hash, quotes: `"'`, vars: true,
		keywords: words("if then else elif fi for while until do done case esac in function return export local readonly set unset shift exit source alias echo cd")}
	add(sh, "bash", "sh", "shell", "zsh", "console", "shellsession", "fish", "ksh")
	add(&lexer{line: hash, quotes: `"'`,
		keywords: words("alias and begin break case class def defined do else elsif end ensure false for if in module next nil not or redo rescue retry return self super then true undef unless until when while yield require attr_accessor")},
		"ruby", "rb")
	add(&lexer{line: []string{"--"}, block: cBlock, quotes: `'"`, caseless: true,
		keywords: words("select from where and or not insert into values update set delete create table drop alter index join left right inner outer on group by order having limit offset as distinct union all null is in like between case when then else end primary key foreign references default exists returning with"),
		types:    words("int integer bigint smallint text varchar char boolean bool date timestamp float real numeric decimal serial json jsonb blob")},
		"sql", "postgresql", "postgres", "mysql", "sqlite")
	add(&lexer{quotes: `"`, keywords: words("true false null")}, "json", "jsonc", "json5")
	add(&lexer{line: hash, quotes: `"'`, keywords: words("true false null yes no on off")}, "yaml", "yml")
	add(&lexer{line: hash, quotes: `"'`, keywords: words("true false")}, "toml", "ini", "conf", "dockerfile", "docker", "makefile", "make")
	add(&lexer{line: []string{"--"}, quotes: `"'`,
		keywords: words("and break do else elseif end false for function goto if in local nil not or repeat return then true until while")}, "lua")
	add(&lexer{line: []string{"//", "#"}, block: cBlock, quotes: `"'`, vars: true,
		keywords: words("abstract and array as break case catch class const continue declare default do echo else elseif empty endif extends final for foreach function global if implements include interface isset list namespace new or print private protected public require return static switch throw trait try unset use var while true false null")}, "php")
	add(&lexer{block: [][2]string{{"<!--", "-->"}}, quotes: `"'`}, "html", "xml", "svg", "vue")
	add(&lexer{block: cBlock, quotes: `"'`}, "css", "scss")
	return m
}

// Highlight colours code as lang (a fence's info string); a language it
// does not know, and diffs, are drawn by line. It returns one line per
// line of code, without a margin.
func (r *Renderer) Highlight(code, lang string) []string {
	p := r.p
	base := style{fg: p.Text}
	switch strings.ToLower(strings.TrimSpace(lang)) {
	case "diff", "patch", "udiff":
		lines := strings.Split(code, "\n")
		for i, l := range lines {
			s := base
			switch {
			case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
				s.bold = true
			case strings.HasPrefix(l, "+"):
				s.fg = p.Added
			case strings.HasPrefix(l, "-"):
				s.fg = p.Removed
			case strings.HasPrefix(l, "@@"):
				s.fg = p.Accent
			}
			lines[i] = s.render(l)
		}
		return lines
	}
	lx := lexerFor(lang)
	if lx == nil {
		lines := strings.Split(code, "\n")
		for i, l := range lines {
			lines[i] = base.render(l)
		}
		return lines
	}
	return r.lex(lx, code)
}

// lex scans code with lx and draws each token, line by line (a token
// spanning lines, such as a block comment, is drawn on each).
func (r *Renderer) lex(lx *lexer, code string) []string {
	p := r.p
	var (
		lines   []string
		cur     strings.Builder
		pending strings.Builder // text of the same style, not drawn yet
		last    style
	)
	flush := func() {
		for i, part := range strings.Split(pending.String(), "\n") {
			if i > 0 {
				lines = append(lines, cur.String())
				cur.Reset()
			}
			cur.WriteString(last.render(part))
		}
		pending.Reset()
	}
	emit := func(t string, s style) {
		if s != last {
			flush()
			last = s
		}
		pending.WriteString(t)
	}
	plain, comment, str := style{fg: p.Text}, style{fg: p.Comment, italic: true}, style{fg: p.String}
	i := 0
	for i < len(code) {
		rest := code[i:]
		if j := lx.commentEnd(rest); j > 0 {
			emit(rest[:j], comment)
			i += j
			continue
		}
		c := code[i]
		switch {
		case lx.triple && (strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, "'''")):
			end := strings.Index(rest[3:], rest[:3])
			j := len(rest)
			if end >= 0 {
				j = 3 + end + 3
			}
			emit(rest[:j], str)
			i += j
		case strings.IndexByte(lx.quotes, c) >= 0 || strings.IndexByte(lx.raw, c) >= 0:
			j := stringEnd(rest, strings.IndexByte(lx.raw, c) < 0)
			emit(rest[:j], str)
			i += j
		case lx.vars && c == '$':
			j := 1
			for j < len(rest) && (isWord(rest[j]) || rest[j] == '{' || rest[j] == '}') {
				j++
			}
			emit(rest[:j], style{fg: p.Type})
			i += j
		case c >= '0' && c <= '9' && (i == 0 || !isWord(code[i-1])):
			j := 1
			for j < len(rest) && (isWord(rest[j]) || rest[j] == '.') {
				j++
			}
			emit(rest[:j], style{fg: p.Number})
			i += j
		case isWordStart(rest):
			j := 0
			for j < len(rest) {
				r, n := utf8.DecodeRuneInString(rest[j:])
				if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				j += n
			}
			w := rest[:j]
			key := w
			if lx.caseless {
				key = strings.ToLower(w)
			}
			switch {
			case lx.keywords[key]:
				emit(w, style{fg: p.Keyword, bold: p.Keyword == nil})
			case lx.types[key]:
				emit(w, style{fg: p.Type})
			case strings.HasPrefix(strings.TrimLeft(rest[j:], " "), "("):
				emit(w, style{fg: p.Func})
			default:
				emit(w, plain)
			}
			i += j
		default:
			_, n := utf8.DecodeRuneInString(rest)
			emit(rest[:n], plain)
			i += n
		}
	}
	flush()
	return append(lines, cur.String())
}

// commentEnd is the length of the comment rest starts with, 0 if none.
func (lx *lexer) commentEnd(rest string) int {
	for _, b := range lx.block {
		if strings.HasPrefix(rest, b[0]) {
			if end := strings.Index(rest[len(b[0]):], b[1]); end >= 0 {
				return len(b[0]) + end + len(b[1])
			}
			return len(rest)
		}
	}
	for _, l := range lx.line {
		if strings.HasPrefix(rest, l) {
			if end := strings.IndexByte(rest, '\n'); end >= 0 {
				return end
			}
			return len(rest)
		}
	}
	return 0
}

// stringEnd is the length of the string rest starts with (its opening
// quote included): up to the same quote, or the line's end for a quote
// that allows escapes and is not closed (an apostrophe in a comment-less
// language, say).
func stringEnd(rest string, escapes bool) int {
	q := rest[0]
	for j := 1; j < len(rest); j++ {
		switch rest[j] {
		case '\\':
			if escapes {
				j++
			}
		case '\n':
			if escapes {
				return j
			}
		case q:
			return j + 1
		}
	}
	return len(rest)
}

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isWordStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r)
}
