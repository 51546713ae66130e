package search

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// schemaText gathers the words of a JSON schema that say what a tool takes:
// property names, titles, descriptions and enum values, nested ones too.
//
// It scans the JSON bytes itself instead of decoding into maps: schemas are
// most of a catalog's bytes, and decoding them dominated index build time.
// Malformed JSON yields whatever was read before the fault.
func schemaText(raw json.RawMessage) string {
	return string(appendSchemaText(nil, raw))
}

// appendSchemaText is schemaText appending to dst, so index workers reuse
// one buffer.
func appendSchemaText(dst []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return dst
	}
	sc := schemaScanner{b: raw, out: dst, start: len(dst)}
	sc.value(ctxSchema, 0)
	return sc.out
}

// What the value being scanned is, from the key that led to it.
const (
	ctxSchema = iota // a (sub)schema or anything else walked for nested schemas
	ctxProps         // the object under "properties": its keys are parameter names
	ctxText          // a description or title: kept
	ctxEnum          // an enum array: its strings are kept
	ctxSkip          // default, examples, const: values, not schema
)

const (
	maxSchemaDepth = 32
	maxSchemaText  = 8 << 10
)

type schemaScanner struct {
	b     []byte
	i     int
	out   []byte
	start int // where this schema's text starts in out
	// frag, when set, gets each piece of text (a name, a description)
	// instead of out; n counts their bytes against maxSchemaText.
	frag func(text []byte)
	n    int
}

// schemaFragments calls frag with each piece of text of a schema that
// schemaText would gather, decoded. Pieces repeat across tools far more
// than whole schemas do ("path", "Maximum number of results"), so the
// index memoises their analysis.
func schemaFragments(raw json.RawMessage, frag func(text []byte)) {
	if len(raw) == 0 {
		return
	}
	sc := schemaScanner{b: raw, frag: frag}
	sc.value(ctxSchema, 0)
}

func (s *schemaScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one JSON value; false means the input ended or is malformed.
func (s *schemaScanner) value(ctx, depth int) bool {
	s.ws()
	if s.i >= len(s.b) || depth > maxSchemaDepth {
		return false
	}
	switch s.b[s.i] {
	case '{':
		s.i++
		for {
			s.ws()
			if s.i < len(s.b) && s.b[s.i] == '}' {
				s.i++
				return true
			}
			key, esc, ok := s.str()
			if !ok {
				return false
			}
			if ctx == ctxProps {
				s.write(key, esc)
			}
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return false
			}
			s.i++
			sub := ctxSchema
			switch {
			case ctx == ctxSkip:
				sub = ctxSkip
			case ctx == ctxProps:
				sub = ctxSchema
			case string(key) == "properties":
				sub = ctxProps
			case string(key) == "description" || string(key) == "title":
				sub = ctxText
			case string(key) == "enum":
				sub = ctxEnum
			case string(key) == "default" || string(key) == "examples" || string(key) == "const" || string(key) == "required":
				sub = ctxSkip
			}
			if !s.value(sub, depth+1) {
				return false
			}
			s.ws()
			if s.i < len(s.b) && s.b[s.i] == ',' {
				s.i++
			}
		}
	case '[':
		s.i++
		for {
			s.ws()
			if s.i < len(s.b) && s.b[s.i] == ']' {
				s.i++
				return true
			}
			if !s.value(ctx, depth+1) {
				return false
			}
			s.ws()
			if s.i < len(s.b) && s.b[s.i] == ',' {
				s.i++
			}
		}
	case '"':
		v, esc, ok := s.str()
		if ok && (ctx == ctxText || ctx == ctxEnum) {
			s.write(v, esc)
		}
		return ok
	default: // number, true, false, null
		start := s.i
	scalar:
		for ; s.i < len(s.b); s.i++ {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				break scalar
			}
		}
		return s.i > start
	}
}

// str scans a string and returns its raw bytes (escapes undecoded) without
// allocating: keys are only compared, most values skipped.
func (s *schemaScanner) str() (raw []byte, escaped, ok bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, false
	}
	s.i++
	start := s.i
	for {
		// IndexByte is vectorised: strings are most of a schema's bytes.
		q := bytes.IndexByte(s.b[s.i:], '"')
		if q < 0 {
			return nil, false, false
		}
		end := s.i + q
		if bytes.IndexByte(s.b[s.i:end], '\\') < 0 {
			s.i = end
			break
		}
		// An escape before the quote: step through this stretch by hand.
		for s.i < end {
			if s.b[s.i] == '\\' {
				escaped = true
				s.i++
			}
			s.i++
		}
		if s.i == end {
			break // the quote ends the string
		}
		s.i = end + 1 // the quote was escaped
	}
	raw = s.b[start:s.i]
	s.i++
	return raw, escaped, true
}

// write keeps a string's text, decoding escapes.
func (s *schemaScanner) write(raw []byte, escaped bool) {
	if s.frag != nil {
		if s.n >= maxSchemaText {
			return
		}
		s.n += len(raw) + 1
		if escaped {
			if v, err := strconv.Unquote(`"` + string(raw) + `"`); err == nil {
				raw = []byte(v)
			} else {
				raw = []byte(strings.ToValidUTF8(string(raw), string(utf8.RuneError)))
			}
		}
		s.frag(raw)
		return
	}
	if len(s.out)-s.start >= maxSchemaText {
		return
	}
	if !escaped {
		s.out = append(s.out, raw...)
	} else if v, err := strconv.Unquote(`"` + string(raw) + `"`); err == nil {
		s.out = append(s.out, v...)
	} else {
		s.out = append(s.out, strings.ToValidUTF8(string(raw), string(utf8.RuneError))...)
	}
	s.out = append(s.out, '\n')
}
