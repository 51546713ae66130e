package rawjson

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Unquote is what json.Unmarshal makes of the JSON string s (quotes
// included) as a Go string's bytes: escapes decoded, an unpaired surrogate
// and invalid UTF-8 made U+FFFD; ok is false where it would fail. It is
// encoding/json's unquoteBytes (same rules, FuzzUnquote holds it there)
// with the plain runs between escapes copied whole. A tool list's
// descriptions with an escape (a quote, a newline) went through
// json.Unmarshal, which validated each again and decoded it through
// reflection: the most of parsing a listed tool after its schema.
func Unquote(s []byte) (t []byte, ok bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return nil, false
	}
	s = s[1 : len(s)-1]
	r := PlainRun(s, 0)
	if r == len(s) && utf8.Valid(s) {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for {
		run := s[:r]
		if utf8.Valid(run) {
			b = append(b, run...)
		} else {
			for len(run) > 0 { // coerce to well-formed UTF-8
				rr, size := utf8.DecodeRune(run)
				b = utf8.AppendRune(b, rr)
				run = run[size:]
			}
		}
		s = s[r:]
		if len(s) == 0 {
			return b, true
		}
		if s[0] != '\\' {
			return nil, false // a quote or a control byte
		}
		if len(s) < 2 {
			return nil, false
		}
		switch s[1] {
		case '"', '\\', '/', '\'':
			b = append(b, s[1])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			rr := getu4(s)
			if rr < 0 {
				return nil, false
			}
			s = s[6:]
			if utf16.IsSurrogate(rr) {
				if dec := utf16.DecodeRune(rr, getu4(s)); dec != unicode.ReplacementChar {
					// A valid pair; consume.
					s = s[6:]
					b = utf8.AppendRune(b, dec)
					r = PlainRun(s, 0)
					continue
				}
				rr = unicode.ReplacementChar // invalid surrogate
			}
			b = utf8.AppendRune(b, rr)
			r = PlainRun(s, 0)
			continue
		default:
			return nil, false
		}
		s = s[2:]
		r = PlainRun(s, 0)
	}
}

// getu4 decodes \uXXXX from the beginning of s, returning the hex value,
// or it returns -1 (encoding/json's).
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
