package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQueryBytes bounds the text a query is analysed from. Tool-search
// queries are a sentence or two; a 10,000-character paste is cut here so a
// query costs the same whatever its size.
const maxQueryBytes = 2048

// maxTokenLen drops tokens that cannot be words (base64, hashes): they only
// bloat the vocabulary.
const maxTokenLen = 40

// words splits s into lower-case word pieces: on anything that is not a
// letter or digit, on camelCase and ACRONYMWord boundaries, and between
// letters and digits. So "getUserByID", "get_user_by_id", "get-user.by.id"
// and "GetUserById" all give get, user, by, id. Runs of CJK characters become
// overlapping character bigrams, the usual way to index text without spaces.
func words(s string, emit func(w string)) {
	var run []rune // the current run of letters and digits
	flush := func() {
		splitRun(run, emit)
		run = run[:0]
	}
	var prevCJK rune
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if isCJK(r) {
			flush()
			if prevCJK != 0 {
				emit(string([]rune{prevCJK, r}))
			} else if next, _ := utf8.DecodeRuneInString(s[i:]); !isCJK(next) {
				emit(string(r)) // a lone character is its own token
			}
			prevCJK = r
			continue
		}
		prevCJK = 0
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			run = append(run, r)
			continue
		}
		flush()
	}
	flush()
}

// splitRun cuts one run of letters and digits at case and digit boundaries.
func splitRun(run []rune, emit func(w string)) {
	start := 0
	piece := func(end int) {
		if end > start && end-start <= maxTokenLen {
			emit(strings.ToLower(string(run[start:end])))
		}
		start = end
	}
	for i := 1; i < len(run); i++ {
		p, r := run[i-1], run[i]
		switch {
		case unicode.IsDigit(p) != unicode.IsDigit(r):
			piece(i)
		case unicode.IsLower(p) && unicode.IsUpper(r):
			piece(i)
		case unicode.IsUpper(p) && unicode.IsUpper(r) && i+1 < len(run) && unicode.IsLower(run[i+1]):
			piece(i) // "HTTPServer": the S starts the next word
		}
	}
	piece(len(run))
}

func isCJK(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// analyzer turns text into index terms: words, minus stop words, stemmed.
// It memoises stems, so a term's string is shared by every document that
// has it (less memory, cheaper map keys). Not safe for concurrent use.
type analyzer struct {
	stems map[string]string
	stem  func(string) string // nil: no stemming
}

func newAnalyzer(stemmer string) *analyzer {
	return &analyzer{stems: map[string]string{}, stem: stemmerFunc(stemmer)}
}

// terms calls emit for each index term of s.
func (a *analyzer) terms(s string, emit func(term string)) {
	words(s, func(w string) {
		if stopWords[w] {
			return
		}
		if a.stem == nil {
			emit(w)
			return
		}
		t, ok := a.stems[w]
		if !ok {
			t = a.stem(w)
			if a.stems != nil {
				a.stems[strings.Clone(w)] = t
			}
		}
		emit(t)
	})
}

// joins calls emit with the stem of each pair of adjacent words glued
// together, so a name written "word_cloud" also matches "wordcloud" and a
// query saying "screen shot" matches a tool named "screenshot".
func (a *analyzer) joins(s string, emit func(term string)) {
	prev := ""
	words(s, func(w string) {
		if stopWords[w] || isNumber(w) {
			prev = ""
			return
		}
		if prev != "" && len(prev)+len(w) <= maxTokenLen {
			if a.stem == nil {
				emit(prev + w)
			} else {
				emit(a.stem(prev + w))
			}
		}
		prev = w
	})
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// stopWords are English function words plus the filler of requests ("please
// help me"). Domain words (get, file, data) stay: idf weighs them.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are as at be
		because been before being below between both but by can could did do does doing done down during each
		either etc few for from further had has have having he her here hers herself him himself his how i if in
		into is it its itself just let lets me more most my myself no nor not now of off on once only or other
		our ours ourselves out over own same shall she should so some such than that the their theirs them
		themselves then there these they this those through to too under until up upon us very via was we were
		what when where which while who whom why will with within without would you your yours yourself
		yourselves e g eg ie i.e please help want need like kindly could would may might must`) {
		m[w] = true
	}
	return m
}()
