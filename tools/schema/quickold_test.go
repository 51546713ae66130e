package schema

// oldQuickValid is quickValid as it was before 2f1bb75 made it one pass
// (three walks over rawjson.EachMember: quadratic in depth, but each rule
// written where check has it), kept unchanged but for its names as the
// oracle of TestQuickValidMatchesOld and FuzzQuickValidMatchesOld. A change
// that means quickValid to take more or less than it did changes both.

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/agent-dev/agent/internal/rawjson"
)

// oldQuickValid reports whether check(s) certainly returns nil, reading s in
// place: the same rules as check's (a top-level object schema, every
// "type" a JSON Schema type, the keywords of the 2020-12 meta-schema the
// right shape, every local $ref resolving), without decoding s into maps.
// The decode was most of a cold start's schema check: 282 tools' schemas
// made 55,000 allocations and 3 MB of garbage before the first request.
// It answers false whenever it is not sure (an escape in a key or in a
// string it compares, a keyword metaValid2020 leaves to the library, a
// $schema of another draft), and Check then runs check, whose message
// names the problem. Where s repeats a key, the decoder keeps the last
// value; oldQuickValid holds every value to the rule, which is stricter.
// TestQuickValidAgreesWithCheck and FuzzQuickValid hold it to check.
func oldQuickValid(s []byte) bool {
	if len(s) == 0 || s[0] != '{' || !metaWalk {
		return false
	}
	q := &oldQuick{root: s}
	ok := true
	url := ""
	// Validated and its members read in one pass.
	valid := rawjson.ValidObject(s, func(k, v []byte) {
		if !ok {
			return
		}
		switch string(k) {
		case "type":
			ok = string(v) == `"object"`
		case "$schema":
			str, plain := oldPlainString(v)
			if !plain {
				ok = false
				break
			}
			url = str
		default:
			ok = q.keywordValid(k, v)
		}
	})
	if !valid || !ok || !fastDialects[metaURL(url)] {
		return false
	}
	return q.walk(s, false, true)
}

type oldQuick struct {
	root []byte
	// refs remembers resolves' answers: a schema refers to the same
	// definition many times over, and each answer walked the root again.
	refs map[string]bool
	// objs are the objects resolve went through, by where they start.
	objs map[*byte]map[string][]byte
}

// walk is checkTypes and checkRefs over v: every "type" of a schema is a
// JSON Schema type (when types is set) and every local $ref resolves.
// inMap says v is a name→schema map (properties, $defs...), whose names
// are not keywords.
func (q *oldQuick) walk(v []byte, inMap, types bool) bool {
	switch v[0] {
	case '{':
		ok := true
		rawjson.EachMember(v, func(k, x []byte) bool {
			if bytes.IndexByte(k, '\\') >= 0 {
				ok = false // the name decides what comes next: check decodes it
				return false
			}
			if !inMap {
				switch string(k) {
				case "enum", "const", "default", "examples":
					return true // values, not schemas
				case "example":
					// checkTypes skips it, checkRefs does not.
					ok = q.walk(x, false, false)
					return ok
				case "type":
					if types && !oldTypeValid(x) {
						ok = false
						return false
					}
				case "$ref":
					if x[0] == '"' {
						ref, plain := oldPlainString(x)
						if !plain || strings.HasPrefix(ref, "#") && !q.resolves(ref) {
							ok = false
							return false
						}
					}
				}
			}
			ok = q.walk(x, schemaMaps[string(k)], types)
			return ok
		})
		return ok
	case '[':
		ok := true
		rawjson.EachElem(v, func(x []byte) bool {
			ok = q.walk(x, false, types)
			return ok
		})
		return ok
	}
	return true
}

// oldTypeValid is checkTypes' rule for a "type" value.
func oldTypeValid(x []byte) bool {
	switch x[0] {
	case '"':
		t, plain := oldPlainString(x)
		return plain && validTypes[t]
	case '[':
		ok := true
		rawjson.EachElem(x, func(e []byte) bool {
			t, plain := oldPlainString(e)
			ok = plain && validTypes[t]
			return ok
		})
		return ok
	}
	return false
}

// resolves is resolve(root, ref) != nil over the raw root: each segment is
// the last member of that name, and the end an object.
func (q *oldQuick) resolves(ref string) bool {
	if ref == "#" {
		return true
	}
	if ok, seen := q.refs[ref]; seen {
		return ok
	}
	ok := q.resolve(ref)
	if q.refs == nil {
		q.refs = map[string]bool{}
	}
	q.refs[ref] = ok
	return ok
}

// resolve is resolves without the memory.
func (q *oldQuick) resolve(ref string) bool {
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return false
	}
	cur := q.root
	for {
		seg, rest, more := strings.Cut(p, "/")
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		if cur[0] != '{' {
			return false
		}
		next, found := q.members(cur)[seg]
		if !found {
			return false
		}
		cur = next
		if !more {
			break
		}
		p = rest
	}
	return cur[0] == '{'
}

// members is the object o of the root by key, the last member of each
// name; nil when a key may decode to other bytes (an escape, or invalid
// UTF-8 read as U+FFFD), which may name any segment: check decodes them.
// Each object is read once: the refs of a schema mostly go through the
// same few ($defs), and each went through all of their members.
func (q *oldQuick) members(o []byte) map[string][]byte {
	at := unsafe.SliceData(o)
	if m, ok := q.objs[at]; ok {
		return m
	}
	m := map[string][]byte{}
	rawjson.EachMember(o, func(k, x []byte) bool {
		if bytes.IndexByte(k, '\\') >= 0 || !utf8.Valid(k) {
			m = nil
			return false
		}
		m[oldUnsafeString(k)] = x
		return true
	})
	if q.objs == nil {
		q.objs = map[*byte]map[string][]byte{}
	}
	q.objs[at] = m
	return m
}

// schemaValid is metaValid2020 over raw JSON.
func (q *oldQuick) schemaValid(x []byte) bool {
	switch x[0] {
	case 't', 'f':
		return true
	case '{':
		ok := true
		rawjson.EachMember(x, func(k, v []byte) bool {
			ok = q.keywordValid(k, v)
			return ok
		})
		return ok
	}
	return false
}

// keywordValid is the keywordValid of metaValid2020 over raw JSON; a key
// with an escape is not sure (it may decode to a keyword).
func (q *oldQuick) keywordValid(k, x []byte) bool {
	if bytes.IndexByte(k, '\\') >= 0 {
		return false
	}
	switch string(k) {
	case "$ref", "$dynamicRef", "$recursiveRef", "$comment", "title", "description", "format",
		"contentEncoding", "contentMediaType", "pattern":
		return x[0] == '"'
	case "$defs", "definitions", "properties", "patternProperties", "dependentSchemas":
		if x[0] != '{' {
			return false
		}
		ok := true
		rawjson.EachMember(x, func(_, s []byte) bool {
			ok = q.schemaValid(s)
			return ok
		})
		return ok
	case "prefixItems", "allOf", "anyOf", "oneOf":
		if x[0] != '[' {
			return false
		}
		ok, n := true, 0
		rawjson.EachElem(x, func(s []byte) bool {
			n++
			ok = q.schemaValid(s)
			return ok
		})
		return ok && n > 0
	case "items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return q.schemaValid(x)
	case "type":
		switch x[0] {
		case '"':
			t, plain := oldPlainString(x)
			return plain && validTypes[t]
		case '[':
			return oldUniquePlainStrings(x, func(s string) bool { return validTypes[s] }, true)
		}
		return false
	case "const", "default":
		return true
	case "examples":
		return x[0] == '['
	case "enum":
		// Strings, booleans and null, each once, as metaValid2020 has it.
		return x[0] == '[' && oldUniquePlainStrings(x, nil, false)
	case "multipleOf":
		f, ok := oldNumberValue(x)
		return ok && f > 0
	case "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum":
		_, ok := oldNumberValue(x)
		return ok
	case "maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties":
		if !oldIsNumber(x) || bytes.ContainsAny(x, ".eE-") {
			return false
		}
		_, err := strconv.ParseUint(oldUnsafeString(x), 10, 64)
		return err == nil
	case "uniqueItems", "deprecated", "readOnly", "writeOnly":
		return x[0] == 't' || x[0] == 'f'
	case "required":
		return x[0] == '[' && oldUniquePlainStrings(x, nil, true)
	case "dependentRequired":
		if x[0] != '{' {
			return false
		}
		ok := true
		rawjson.EachMember(x, func(_, r []byte) bool {
			ok = r[0] == '[' && oldUniquePlainStrings(r, nil, true)
			return ok
		})
		return ok
	case "dependencies":
		if x[0] != '{' {
			return false
		}
		ok := true
		rawjson.EachMember(x, func(_, d []byte) bool {
			if d[0] == '[' {
				ok = oldUniquePlainStrings(d, nil, true)
			} else {
				ok = q.schemaValid(d)
			}
			return ok
		})
		return ok
	case "$schema", "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary":
		return false
	}
	return true
}

// oldUniquePlainStrings reports whether array a holds distinct values, each
// a string without escapes accepted by ok (nil: any); with onlyStrings
// unset, true, false and null may be among them too (enum). An empty
// array passes only with onlyStrings and a nil ok (required), as
// metaValid2020 has it.
func oldUniquePlainStrings(a []byte, ok func(string) bool, onlyStrings bool) bool {
	var seen [16][]byte
	var many map[string]bool
	n, good := 0, true
	rawjson.EachElem(a, func(e []byte) bool {
		switch e[0] {
		case '"':
			s, plain := oldPlainString(e)
			if !plain || ok != nil && !ok(s) {
				good = false
			}
		case 't', 'f', 'n':
			good = !onlyStrings
		default:
			good = false
		}
		if !good {
			return false
		}
		if n < len(seen) {
			for _, p := range seen[:n] {
				if bytes.Equal(p, e) {
					good = false
					return false
				}
			}
			seen[n] = e
		} else {
			if many == nil {
				many = make(map[string]bool, 2*len(seen))
				for _, p := range seen {
					many[string(p)] = true
				}
			}
			if many[string(e)] {
				good = false
				return false
			}
			many[string(e)] = true
		}
		n++
		return true
	})
	if !good {
		return false
	}
	if n == 0 {
		// type and enum want one value at least; required may be empty.
		return onlyStrings && ok == nil
	}
	return true
}

// oldPlainString is the value of a JSON string without escapes whose bytes
// are valid UTF-8 (so that comparing raw bytes is comparing the decoded
// strings); plain is false for anything else.
func oldPlainString(x []byte) (string, bool) {
	if len(x) < 2 || x[0] != '"' {
		return "", false
	}
	in := x[1 : len(x)-1]
	if bytes.IndexByte(in, '\\') >= 0 || !utf8.Valid(in) {
		return "", false
	}
	return oldUnsafeString(in), true
}

func oldIsNumber(x []byte) bool { return x[0] == '-' || x[0] >= '0' && x[0] <= '9' }

// oldNumberValue is number for a raw JSON value.
func oldNumberValue(x []byte) (float64, bool) {
	if !oldIsNumber(x) {
		return 0, false
	}
	f, err := strconv.ParseFloat(oldUnsafeString(x), 64)
	return f, err == nil
}

// oldUnsafeString is b as a string for the length of a call that keeps no
// reference to it.
func oldUnsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
