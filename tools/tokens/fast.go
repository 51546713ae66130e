package tokens

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// CountCached returns the same o200k count as Count, much faster on large
// JSON (tool catalogs, request bodies): it splits the text into o200k's
// pre-tokenizer pieces with a hand-written scanner instead of tiktoken-go's
// backtracking regexp, and remembers the byte-pair count of every distinct
// piece. JSON repeats the same few thousand pieces ("description", `":"`,
// " the") over and over, so almost every piece is a cache hit.
//
// The scanner follows o200k_base's pattern alternative by alternative, with
// the lengths a backtracking engine picks; TestCountCachedMatchesCount holds
// it to tiktoken-go on real catalogs and on random text.
func CountCached(s string) int {
	e, err := encoding()
	if err != nil {
		return (len(s) + 3) / 4
	}
	count := func(p string) int { return len(e.EncodeOrdinary(p)) }
	n := 0
	for i := 0; i < len(s); {
		j := i + pieceEnd(s[i:])
		n += pieceCount(s[i:j], count)
		i = j
	}
	return n
}

// pieceEnd is the length of the o200k piece at the start of s (s != ""):
// the first of the pattern's alternatives that matches, with the length a
// backtracking engine would pick.
func pieceEnd(s string) int {
	if n := letters(s); n > 0 {
		return n
	}
	if n := capitals(s); n > 0 {
		return n
	}
	if n := numbers(s); n > 0 {
		return n
	}
	if n := punct(s); n > 0 {
		return n
	}
	if n := newlines(s); n > 0 {
		return n
	}
	return spaces(s)
}

func at(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// isSpace is .NET's \s, which tiktoken-go's regexp2 uses: [\f\n\r\t\v\x85\p{Z}].
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x85:
		return true
	}
	return r > 0x7f && unicode.In(r, unicode.Z)
}

func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	return unicode.IsLetter(r)
}

func isNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9'
	}
	return unicode.IsNumber(r)
}

// isUpper is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], isLower [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func isUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'A' && r <= 'Z'
	}
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

func isLower(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z'
	}
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// lead is the optional first character of the letter alternatives,
// [^\r\n\p{L}\p{N}]: the offsets to try, with the character first. Both
// are 0 when there is none.
func lead(s string) (first, then int) {
	if r, n := at(s, 0); n > 0 && r != '\r' && r != '\n' && !isLetter(r) && !isNumber(r) {
		return n, 0
	}
	return 0, 0
}

func run(s string, i int, in func(rune) bool) int {
	for {
		r, n := at(s, i)
		if n == 0 || !in(r) {
			return i
		}
		i += n
	}
}

// contraction matches (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or returns i.
func contraction(s string, i int) int {
	if i >= len(s) || s[i] != '\'' {
		return i
	}
	rest := strings.ToLower(s[i+1 : min(len(s), i+3)])
	for _, c := range []string{"s", "t", "re", "ve", "m", "ll", "d"} {
		if strings.HasPrefix(rest, c) {
			return i + 1 + len(c)
		}
	}
	return i
}

// letters: lead? upper* lower+ contraction?
func letters(s string) int {
	a, b := lead(s)
	for _, i := range [2]int{a, b} {
		k := run(s, i, isUpper)
		if e := run(s, k, isLower); e > k {
			return contraction(s, e)
		}
		// upper* gives characters back until lower+ can take one.
		for j := k; j > i; {
			r, n := utf8.DecodeLastRuneInString(s[i:j])
			j -= n
			if isLower(r) {
				return contraction(s, j+n)
			}
		}
	}
	return 0
}

// capitals: lead? upper+ lower* contraction?
func capitals(s string) int {
	a, b := lead(s)
	for _, i := range [2]int{a, b} {
		if k := run(s, i, isUpper); k > i {
			return contraction(s, run(s, k, isLower))
		}
	}
	return 0
}

// numbers: \p{N}{1,3}
func numbers(s string) int {
	i := 0
	for k := 0; k < 3; k++ {
		r, n := at(s, i)
		if n == 0 || !isNumber(r) {
			break
		}
		i += n
	}
	return i
}

// punct: " ?[^\s\p{L}\p{N}]+[\r\n/]*"
func punct(s string) int {
	a := 0
	if len(s) > 0 && s[0] == ' ' {
		a = 1
	}
	for _, i := range [2]int{a, 0} {
		if e := run(s, i, isOther); e > i {
			return run(s, e, isBreakOrSlash)
		}
	}
	return 0
}

func isOther(r rune) bool { return !isSpace(r) && !isLetter(r) && !isNumber(r) }

func isBreakOrSlash(r rune) bool { return r == '\r' || r == '\n' || r == '/' }

// newlines: \s*[\r\n]+ — the whitespace run up to its last line break.
func newlines(s string) int {
	end, last := 0, 0
	for {
		r, n := at(s, end)
		if n == 0 || !isSpace(r) {
			break
		}
		end += n
		if r == '\r' || r == '\n' {
			last = end
		}
	}
	return last
}

// spaces: \s+(?!\S)|\s+. The first takes a whitespace run whole at the end
// of the text; before other text it gives back the last character, which
// then starts the next piece; a lone space falls to the second.
func spaces(s string) int {
	end, last := 0, 0
	for {
		r, n := at(s, end)
		if n == 0 || !isSpace(r) {
			break
		}
		last = end
		end += n
	}
	switch {
	case end == 0:
		// Not reachable with valid UTF-8; step over the byte.
		_, n := utf8.DecodeRuneInString(s)
		return n
	case end == len(s) || last == 0:
		return end
	}
	return last
}

var (
	pieceMu    sync.RWMutex
	pieceCache = map[string]int{}
)

// maxCachedPiece keeps one-off long pieces (base64, minified blobs) out of
// the cache.
const maxCachedPiece = 64

func pieceCount(p string, count func(string) int) int {
	if len(p) > maxCachedPiece {
		return count(p)
	}
	pieceMu.RLock()
	n, ok := pieceCache[p]
	pieceMu.RUnlock()
	if ok {
		return n
	}
	n = count(p)
	pieceMu.Lock()
	pieceCache[strings.Clone(p)] = n
	pieceMu.Unlock()
	return n
}
