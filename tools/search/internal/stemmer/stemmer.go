// Package stemmer holds the search engine's stemmers. It is a package of
// its own so that internal/wordnetgen keys the WordNet tables it writes by
// the very stems the engine looks them up by.
package stemmer

import "strings"

// Func maps a Config.Stemmer name to its function: "porter", "s", or nil
// for any other name (no stemming).
func Func(name string) func(string) string {
	switch name {
	case "porter":
		return Porter
	case "s":
		return S
	}
	return nil
}

// S is Harman's S-stemmer: it only folds plurals ("queries" -> "query",
// "files" -> "file"), so it never conflates words of different meaning.
func S(w string) string {
	n := len(w)
	if n < 4 || w[n-1] != 's' {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && !strings.HasSuffix(w, "eies") && !strings.HasSuffix(w, "aies"):
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "aes") && !strings.HasSuffix(w, "ees") && !strings.HasSuffix(w, "oes"):
		return w[:n-1]
	case !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "ss"):
		return w[:n-1]
	}
	return w
}

// Porter is the Porter (1980) stemmer, the classic light stemmer of lexical
// search: "creating", "creates" and "created" all become "creat", so a query
// and a description need not agree on a word's form. Words of fewer than
// three letters and words with non-ASCII letters are left alone.
func Porter(w string) string {
	if len(w) < 3 || keepWhole[w] {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	// The word is worked on in a buffer on the stack, and a stem that is
	// the word cut short, as most are, is returned as part of it: an index
	// stems every distinct word of a catalog, and these were two
	// allocations a word.
	var buf [32]byte
	s := porter{b: append(buf[:0], w...)}
	s.step1ab()
	if len(s.b) > 2 {
		s.step1c()
		s.step2()
		s.step3()
		s.step4()
		s.step5()
	}
	if len(s.b) <= len(w) && string(s.b) == w[:len(s.b)] {
		return w[:len(s.b)]
	}
	return string(s.b)
}

// keepWhole are words the Porter rules would wrongly cut: "news" is not
// the plural of "new", nor "series" of "sery".
var keepWhole = map[string]bool{
	"news": true, "series": true, "species": true, "means": true, "physics": true,
	"mathematics": true, "economics": true, "politics": true, "statistics": true,
	"analytics": true, "graphics": true, "ethics": true, "lyrics": true,
}

type porter struct {
	b []byte
	j int // end of the stem under test (exclusive) once ends() matched
}

// cons reports whether b[i] is a consonant.
func (p *porter) cons(i int) bool {
	switch p.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !p.cons(i-1)
	}
	return true
}

// m counts the VC sequences in b[:j].
func (p *porter) m() int {
	n, i := 0, 0
	for ; i < p.j && p.cons(i); i++ {
	}
	for i < p.j {
		for ; i < p.j && !p.cons(i); i++ {
		}
		if i >= p.j {
			break
		}
		n++
		for ; i < p.j && p.cons(i); i++ {
		}
	}
	return n
}

func (p *porter) vowelInStem() bool {
	for i := 0; i < p.j; i++ {
		if !p.cons(i) {
			return true
		}
	}
	return false
}

func (p *porter) doubleC(i int) bool {
	return i >= 1 && p.b[i] == p.b[i-1] && p.cons(i)
}

// cvc: b[i-2..i] is consonant-vowel-consonant and the last is not w, x, y.
func (p *porter) cvc(i int) bool {
	if i < 2 || !p.cons(i) || p.cons(i-1) || !p.cons(i-2) {
		return false
	}
	c := p.b[i]
	return c != 'w' && c != 'x' && c != 'y'
}

func (p *porter) ends(s string) bool {
	if len(s) > len(p.b) || string(p.b[len(p.b)-len(s):]) != s {
		return false
	}
	p.j = len(p.b) - len(s)
	return true
}

// setTo replaces b[j:] with s. No rule makes a word longer than it was, so
// s fits in b's room; reslicing instead of append keeps b, a buffer on
// Porter's stack, from escaping to the heap.
func (p *porter) setTo(s string) {
	n := p.j + len(s)
	if n > cap(p.b) {
		nb := make([]byte, n)
		copy(nb, p.b[:p.j])
		p.b = nb
	}
	p.b = p.b[:n]
	copy(p.b[p.j:], s)
}

func (p *porter) r(s string) {
	if p.m() > 0 {
		p.setTo(s)
	}
}

func (p *porter) step1ab() {
	if p.b[len(p.b)-1] == 's' {
		switch {
		case p.ends("sses"):
			p.b = p.b[:len(p.b)-2]
		case p.ends("ies"):
			p.setTo("i")
		case len(p.b) >= 2 && p.b[len(p.b)-2] != 's':
			p.b = p.b[:len(p.b)-1]
		}
	}
	if p.ends("eed") {
		if p.m() > 0 {
			p.b = p.b[:len(p.b)-1]
		}
		return
	}
	if (p.ends("ed") || p.ends("ing")) && p.vowelInStem() {
		p.b = p.b[:p.j]
		p.j = len(p.b)
		switch {
		case p.ends("at"):
			p.setTo("ate")
		case p.ends("bl"):
			p.setTo("ble")
		case p.ends("iz"):
			p.setTo("ize")
		case p.doubleC(len(p.b) - 1):
			if c := p.b[len(p.b)-1]; c != 'l' && c != 's' && c != 'z' {
				p.b = p.b[:len(p.b)-1]
			}
		default:
			p.j = len(p.b)
			if p.m() == 1 && p.cvc(len(p.b)-1) {
				p.j = len(p.b)
				p.setTo("e")
			}
		}
	}
}

func (p *porter) step1c() {
	if p.ends("y") && p.vowelInStem() {
		p.b[len(p.b)-1] = 'i'
	}
}

var step2Rules = []struct{ from, to string }{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"},
	{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"},
	{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"},
	{"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
	{"logi", "log"},
}

func (p *porter) step2() {
	for _, r := range step2Rules {
		if p.ends(r.from) {
			p.r(r.to)
			return
		}
	}
}

var step3Rules = []struct{ from, to string }{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"}, {"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

func (p *porter) step3() {
	for _, r := range step3Rules {
		if p.ends(r.from) {
			p.r(r.to)
			return
		}
	}
}

var step4Suffixes = []string{
	"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
	"ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
}

func (p *porter) step4() {
	for _, s := range step4Suffixes {
		if !p.ends(s) {
			continue
		}
		if s == "ion" && (p.j == 0 || (p.b[p.j-1] != 's' && p.b[p.j-1] != 't')) {
			return
		}
		if p.m() > 1 {
			p.b = p.b[:p.j]
		}
		return
	}
}

func (p *porter) step5() {
	p.j = len(p.b)
	if p.b[len(p.b)-1] == 'e' {
		p.j = len(p.b) - 1
		if a := p.m(); a > 1 || (a == 1 && !p.cvc(len(p.b)-2)) {
			p.b = p.b[:len(p.b)-1]
		}
	}
	p.j = len(p.b)
	if p.b[len(p.b)-1] == 'l' && p.doubleC(len(p.b)-1) && p.m() > 1 {
		p.b = p.b[:len(p.b)-1]
	}
}
