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
// The slice given to emit is only valid during the call: words runs for
// every tool at index time, so it does not allocate per word.
func words[T ~string | ~[]byte](s T, emit func(w []byte)) {
	var arr [64]byte
	splitWords(s, arr[:0], emit)
}

// splitWords is words with the caller's buffer, which the index's analyzer
// keeps: a buffer handed to emit escapes, so words allocates one per call.
func splitWords[T ~string | ~[]byte](s T, buf []byte, emit func(w []byte)) {
	// No flush closure: state a closure captures lives in memory, and this
	// loop runs for every byte of the catalog (about 20% faster without).
	buf = buf[:0]
	var pc, ppc byte // classes of the word's last two runes: 'l', 'u', 'd'
	last := 0        // where the word's last rune starts in buf
	var prevCJK rune
	for i := 0; i < len(s); {
		var r rune
		var cls byte
		if c := s[i]; c < utf8.RuneSelf {
			i++
			r, cls = rune(c), asciiClass[c]
		} else {
			var size int
			r, size = decodeRune(s, i)
			i += size
			switch {
			case isCJK(r):
				if len(buf) > 0 && len(buf) <= maxTokenLen {
					emit(buf)
				}
				buf, pc, ppc = buf[:0], 0, 0
				if prevCJK != 0 {
					emit(utf8.AppendRune(utf8.AppendRune(buf, prevCJK), r))
				} else if next, _ := decodeRune(s, i); !isCJK(next) {
					emit(utf8.AppendRune(buf, r)) // a lone character is its own token
				}
				prevCJK = r
				continue
			case unicode.IsUpper(r):
				cls = 'u'
			case unicode.IsLetter(r):
				cls = 'l'
			case unicode.IsDigit(r):
				cls = 'd'
			}
		}
		prevCJK = 0
		if cls == 0 {
			if len(buf) > 0 {
				if len(buf) <= maxTokenLen {
					emit(buf)
				}
				buf, pc, ppc = buf[:0], 0, 0
			}
			continue
		}
		switch {
		case pc == 0:
		case (cls == 'd') != (pc == 'd'), pc == 'l' && cls == 'u':
			if len(buf) <= maxTokenLen {
				emit(buf)
			}
			buf, pc = buf[:0], 0
		case pc == 'u' && cls == 'l' && ppc == 'u':
			// "HTTPServer": the S starts the next word.
			if last <= maxTokenLen {
				emit(buf[:last])
			}
			buf = buf[:copy(buf, buf[last:])]
		}
		last = len(buf)
		if r < utf8.RuneSelf {
			if cls == 'u' {
				r += 'a' - 'A'
			}
			buf = append(buf, byte(r))
		} else {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		}
		ppc, pc = pc, cls
		if cls == 'l' && r < utf8.RuneSelf {
			// The rest of a run of lower-case ASCII letters, most of any
			// text, in one copy: nothing in it can end a word.
			j := i
			for j < len(s) && s[j] < utf8.RuneSelf && asciiClass[s[j]] == 'l' {
				j++
			}
			if j > i {
				buf = append(buf, s[i:j]...)
				last, ppc, i = len(buf)-1, 'l', j
			}
		}
	}
	if len(buf) > 0 && len(buf) <= maxTokenLen {
		emit(buf)
	}
}

// decodeRune decodes the rune at s[i:] of a string or byte slice.
func decodeRune[T ~string | ~[]byte](s T, i int) (rune, int) {
	switch v := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(v[i:])
	case []byte:
		return utf8.DecodeRune(v[i:])
	}
	return utf8.DecodeRuneInString(string(s[i:]))
}

// asciiClass is the class of each ASCII byte: 'l' lower, 'u' upper, 'd'
// digit, 0 a separator. Most catalog text is ASCII; a table beats branches.
var asciiClass = func() (t [utf8.RuneSelf]byte) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = 'l'
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = 'u'
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = 'd'
	}
	return t
}()

func isCJK(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// analyzer turns text into index terms: words, minus stop words, stemmed.
// At index time (newAnalyzer) it also numbers terms and memoises each
// word's term number, so the hot path is one map lookup per word and a
// term's string is stored once. Not safe for concurrent use; a query uses
// a fresh zero analyzer with only stem set.
type analyzer struct {
	stem    func(string) string // nil: no stemming
	wordID  *wordTable          // word -> term id, -1 for a stop word
	termID  map[string]int32
	termStr []string
	// Buffers of index-time analysis; analysis is not reentrant.
	wbuf, jprev, jbuf []byte
}

func newAnalyzer(stemmer string) *analyzer {
	return &analyzer{stem: stemmerFunc(stemmer), wordID: &wordTable{}, termID: map[string]int32{}, wbuf: make([]byte, 0, 64)}
}

// intern numbers a term.
func (a *analyzer) intern(t string) int32 {
	id, ok := a.termID[t]
	if !ok {
		id = int32(len(a.termStr))
		a.termID[t] = id
		a.termStr = append(a.termStr, t)
	}
	return id
}

func pairKey(x, y int32) uint64 { return uint64(uint32(x))<<32 | uint64(uint32(y)) }

// termIDs calls emit with the number of each index term of s (index time).
func (a *analyzer) termIDs(s string, emit func(id int32)) { termIDsOf(a, s, emit) }

// termIDsOf is termIDs for a string or a byte slice.
func termIDsOf[T ~string | ~[]byte](a *analyzer, s T, emit func(id int32)) {
	splitWords(s, a.wbuf, func(w []byte) {
		if id := a.wordTerm(w); id >= 0 {
			emit(id)
		}
	})
}

// wordTerm is the term number of word w, -1 for a stop word.
func (a *analyzer) wordTerm(w []byte) int32 {
	h := wordHash(w)
	id, ok := a.wordID.get(w, h)
	if !ok {
		id = -1
		if !stopWords[string(w)] {
			id = a.intern(a.stemOf(string(w)))
		}
		a.wordID.put(w, h, id)
	}
	return id
}

// joinIDs is joins at index time, memoised like single words.
func (a *analyzer) joinIDs(s string, emit func(id int32)) {
	prev, buf := a.jprev[:0], a.jbuf[:0]
	defer func() { a.jprev, a.jbuf = prev, buf }()
	splitWords(s, a.wbuf, func(w []byte) {
		if stopWords[string(w)] || isNumber(w) {
			prev = prev[:0]
			return
		}
		if len(prev) > 0 && len(prev)+len(w) <= maxTokenLen {
			buf = append(append(buf[:0], prev...), w...)
			if id := a.wordTerm(buf); id >= 0 {
				emit(id)
			}
		}
		prev = append(prev[:0], w...)
	})
}

func (a *analyzer) stemOf(w string) string {
	if a.stem == nil {
		return w
	}
	return a.stem(w)
}

// terms calls emit for each index term of s.
func (a *analyzer) terms(s string, emit func(term string)) {
	if a.wordID != nil {
		a.termIDs(s, func(id int32) { emit(a.termStr[id]) })
		return
	}
	words(s, func(w []byte) {
		if !stopWords[string(w)] {
			emit(a.stemOf(string(w)))
		}
	})
}

// joins calls emit with the stem of each pair of adjacent words glued
// together, so a name written "word_cloud" also matches "wordcloud" and a
// query saying "screen shot" matches a tool named "screenshot".
func (a *analyzer) joins(s string, emit func(term string)) {
	var prev []byte
	words(s, func(w []byte) {
		if stopWords[string(w)] || isNumber(w) {
			prev = prev[:0]
			return
		}
		if len(prev) > 0 && len(prev)+len(w) <= maxTokenLen {
			emit(a.stemOf(string(append(prev, w...))))
		}
		prev = append(prev[:0], w...)
	})
}

func isNumber(w []byte) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
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
