package search

import (
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
	if len(raw) == 0 {
		return ""
	}
	sc := schemaScanner{b: raw}
	sc.value(ctxSchema, 0)
	return sc.out.String()
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
	b   []byte
	i   int
	out strings.Builder
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
			key, ok := s.str(ctx == ctxProps)
			if !ok {
				return false
			}
			if ctx == ctxProps {
				s.write(key)
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
			case key == "properties":
				sub = ctxProps
			case key == "description" || key == "title":
				sub = ctxText
			case key == "enum":
				sub = ctxEnum
			case key == "default" || key == "examples" || key == "const" || key == "required":
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
		keep := ctx == ctxText || ctx == ctxEnum
		v, ok := s.str(keep)
		if keep {
			s.write(v)
		}
		return ok
	default: // number, true, false, null
		start := s.i
		for s.i < len(s.b) && !strings.ContainsRune(",}] \t\n\r", rune(s.b[s.i])) {
			s.i++
		}
		return s.i > start
	}
}

func (s *schemaScanner) write(v string) {
	if s.out.Len() < maxSchemaText {
		s.out.WriteString(v)
		s.out.WriteByte('\n')
	}
}

// str scans a string. Keys are needed to decide what follows, so the text
// is decoded when keep is set or when it is short enough to be a keyword.
func (s *schemaScanner) str(keep bool) (string, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", false
	}
	s.i++
	start := s.i
	escaped := false
	for s.i < len(s.b) && s.b[s.i] != '"' {
		if s.b[s.i] == '\\' {
			escaped = true
			s.i++
		}
		s.i++
	}
	if s.i >= len(s.b) {
		return "", false
	}
	raw := s.b[start:s.i]
	s.i++
	if !keep && len(raw) > len("description") {
		return "", true
	}
	if !escaped {
		return string(raw), true
	}
	if v, err := strconv.Unquote(`"` + string(raw) + `"`); err == nil {
		return v, true
	}
	return strings.ToValidUTF8(string(raw), string(utf8.RuneError)), true
}
