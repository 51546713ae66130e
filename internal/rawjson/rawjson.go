// Package rawjson reads JSON in place: whether bytes are valid JSON, and
// the members and elements of a valid value as views of it. A cold start
// reads every MCP server's tool list this way (tools/mcp) and checks every
// input schema (tools/schema) without decoding them into maps: encoding/json
// validates through a state machine that calls a function per byte, and its
// decode into map[string]any was most of the schemas' check.
package rawjson

import (
	"encoding/binary"
	"math/bits"
)

// maxDepth is encoding/json's nesting limit, so Valid agrees with
// json.Valid on deep input too.
const maxDepth = MaxDepth

// MaxDepth is how many arrays and objects a valid value may nest, as
// encoding/json has it: a reader that walks values itself (ValueEnd) holds
// them to it too.
const MaxDepth = 10000

// Valid reports whether b is one JSON value with only whitespace around
// it: json.Valid's answer (FuzzValid holds it there), about ten times
// faster. Like json.Valid it does not check that strings are UTF-8.
func Valid(b []byte) bool {
	i, ok := value(b, SkipSpace(b, 0), 0)
	return ok && SkipSpace(b, i) == len(b)
}

// ValidObject is Valid for an object that also calls f with each member's
// raw key (between its quotes, escapes as written) and raw value (capped),
// in order, as it validates them: the pass of Valid and the one of
// EachMember in one, where a caller wanted both (a listed tool, a schema's
// top level). When b is not valid, f may have had the members before the
// fault.
func ValidObject(b []byte, f func(k, v []byte)) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return SkipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		ks := i
		var ok bool
		if i, ok = str(b, i); !ok {
			return false
		}
		k := b[ks+1 : i-1]
		i = SkipSpace(b, i)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		vs := SkipSpace(b, i+1)
		if i, ok = value(b, vs, 1); !ok {
			return false
		}
		f(k, b[vs:i:i])
		i = SkipSpace(b, i)
		switch {
		case i >= len(b):
			return false
		case b[i] == '}':
			return SkipSpace(b, i+1) == len(b)
		case b[i] != ',':
			return false
		}
		i = SkipSpace(b, i+1)
	}
}

// ValueEnd returns the end of the JSON value starting at b[i] (not at
// space), which is nested in depth arrays and objects, and whether it is
// valid as Valid has it: for a reader that walks some values itself and
// skips the others, each byte once (tools/schema's quickValid). When it is
// not valid the end is where the fault was found.
func ValueEnd(b []byte, i, depth int) (int, bool) { return value(b, i, depth) }

// StringEnd is ValueEnd for the string starting at b[i] (its quote).
func StringEnd(b []byte, i int) (int, bool) { return str(b, i) }

func value(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; c {
	case '"':
		return str(b, i)
	case '{', '[':
		if depth++; depth > maxDepth {
			return i, false
		}
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == end {
			return i + 1, true
		}
		for {
			var ok bool
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return i, false
				}
				if i, ok = str(b, i); !ok {
					return i, false
				}
				i = SkipSpace(b, i)
				if i >= len(b) || b[i] != ':' {
					return i, false
				}
				i = SkipSpace(b, i+1)
			}
			if i, ok = value(b, i, depth); !ok {
				return i, false
			}
			i = SkipSpace(b, i)
			switch {
			case i >= len(b):
				return i, false
			case b[i] == end:
				return i + 1, true
			case b[i] != ',':
				return i, false
			}
			i = SkipSpace(b, i+1)
		}
	case 't':
		return literal(b, i, "true")
	case 'f':
		return literal(b, i, "false")
	case 'n':
		return literal(b, i, "null")
	}
	return number(b, i)
}

func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// str reads the string starting at b[i] (its quote).
func str(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		if i = PlainRun(b, i); i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			i++
			if i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 {
					return i, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return i, false
					}
				}
				i += 4
			default:
				return i, false
			}
		case c < 0x20:
			return i, false
		}
	}
	return i, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func number(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b) || !isDigit(b[i]):
		return i, false
	case b[i] == '0':
		i++
	default:
		i = digits(b, i)
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		i = digits(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		i = digits(b, i)
	}
	return i, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// PlainRun returns the index of the first byte of b at or after i that is
// a quote, a backslash or a control character (below 0x20): where the
// plain run of a string's bytes from i ends. Strings are most of a tool
// list's bytes (descriptions), and every pass over it (Valid, SkipValue,
// the MCP reader's) went through them a byte at a time; this tests eight
// bytes at once.
func PlainRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := specials(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specials has the high bit of the first of the eight bytes of x (the
// lowest, read little-endian) that is a quote, a backslash or below 0x20
// set, and no lower one ("has a zero byte" and "has a byte less than n",
// n <= 128, of Bit Twiddling Hacks: a borrow that flags a byte which
// matches nothing only comes up from a lower byte that matches).
func specials(x uint64) uint64 {
	q := x ^ (ones * '"')
	s := x ^ (ones * '\\')
	return ((q-ones)&^q | (s-ones)&^s | (x-ones*0x20)&^x) & highs
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipValue returns the end of the valid JSON value starting at b[i].
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			if i = PlainRun(b, i); i >= len(b) {
				break
			}
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return i
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				// The string skipped here, not in a call of SkipValue
				// per string: the schemas' check goes through nested
				// values, so this runs over most of their strings.
				for i++; i < len(b); i++ {
					if i = PlainRun(b, i); i >= len(b) || b[i] == '"' {
						break
					}
					if b[i] == '\\' {
						i++
					}
				}
				if i >= len(b) {
					return len(b) // not valid JSON: a string without its end
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// EachMember calls f with each member's raw key (between its quotes, escapes
// as written) and raw value (capped) of the valid JSON object o, in order,
// until f returns false.
func EachMember(o []byte, f func(k, v []byte) bool) {
	i := SkipSpace(o, 1)
	for i < len(o) && o[i] != '}' {
		ke := SkipValue(o, i)
		k := o[i+1 : ke-1]
		i = SkipSpace(o, ke)
		i = SkipSpace(o, i+1) // past ':'
		ve := SkipValue(o, i)
		if !f(k, o[i:ve:ve]) {
			return
		}
		i = SkipSpace(o, ve)
		if i < len(o) && o[i] == ',' {
			i = SkipSpace(o, i+1)
		}
	}
}

// EachElem calls f with each element (capped) of the valid JSON array a,
// in order, until f returns false.
func EachElem(a []byte, f func(v []byte) bool) {
	i := SkipSpace(a, 1)
	for i < len(a) && a[i] != ']' {
		ve := SkipValue(a, i)
		if !f(a[i:ve:ve]) {
			return
		}
		i = SkipSpace(a, ve)
		if i < len(a) && a[i] == ',' {
			i = SkipSpace(a, i+1)
		}
	}
}
