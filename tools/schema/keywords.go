package schema

import (
	"bytes"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/agent-dev/agent/internal/rawjson"
)

// The keywords quickValid knows and the shapes of their values over raw
// JSON, as metaValid2020 and checkTypes have them.

// kw is what a member's name is to the walks, read once a member: the
// keywords the rules name, by kind, and kwOther for any other name.
type kw uint8

const (
	kwOther      kw = iota
	kwSchemas       // $defs, properties...: metaSchemas (and schemaMaps: walkMap)
	kwSchemaList    // allOf...: metaSchemaList
	kwSchema        // items, not...: metaSchema
	kwDeps          // dependencies: metaDeps
	kwType
	kwRef
	kwSchemaURL  // $schema: only at the top level
	kwString     // title, description...: a string
	kwConst      // const, default: any value, not walked
	kwExamples   // an array, not walked
	kwEnum       // unique strings, booleans and null, not walked
	kwExample    // any value, walked for $refs only
	kwMultipleOf // a number above 0
	kwNumber     // maximum...: a number
	kwCount      // maxLength...: a non-negative integer
	kwBool       // uniqueItems...: a boolean
	kwRequired   // unique strings
	kwDependentRequired
	kwForbidden // $id, $anchor...: left to the library
)

// keyword is what name k is (k has no escape).
func keyword(k []byte) kw {
	switch string(k) {
	case "type":
		return kwType
	case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas":
		return kwSchemas
	case "description", "title", "$comment", "format", "pattern", "$dynamicRef", "$recursiveRef",
		"contentEncoding", "contentMediaType":
		return kwString
	case "required":
		return kwRequired
	case "items", "additionalProperties", "contains", "propertyNames", "if", "then", "else", "not",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return kwSchema
	case "enum":
		return kwEnum
	case "default", "const":
		return kwConst
	case "$ref":
		return kwRef
	case "anyOf", "oneOf", "allOf", "prefixItems":
		return kwSchemaList
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		return kwNumber
	case "minLength", "maxLength", "minItems", "maxItems", "minContains", "maxContains", "minProperties", "maxProperties":
		return kwCount
	case "uniqueItems", "deprecated", "readOnly", "writeOnly":
		return kwBool
	case "examples":
		return kwExamples
	case "example":
		return kwExample
	case "multipleOf":
		return kwMultipleOf
	case "dependencies":
		return kwDeps
	case "dependentRequired":
		return kwDependentRequired
	case "$schema":
		return kwSchemaURL
	case "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary":
		return kwForbidden
	}
	return kwOther
}

// role is what a schema's keyword wants of its value, when it holds
// schemas; metaNone for the others (leafValid).
func (k kw) role() metaRole {
	switch k {
	case kwSchemas:
		return metaSchemas
	case kwSchemaList:
		return metaSchemaList
	case kwSchema:
		return metaSchema
	case kwDeps:
		return metaDeps
	}
	return metaNone
}

// typeValid is checkTypes' rule for a "type" value.
func typeValid(x []byte) bool {
	switch x[0] {
	case '"':
		return typeName(x)
	case '[':
		ok := true
		rawjson.EachElem(x, func(e []byte) bool {
			ok = typeName(e)
			return ok
		})
		return ok
	}
	return false
}

// typeName reports whether the raw JSON value x is a string without
// escapes naming a JSON Schema type (validTypes): by its bytes, which only
// the plain spelling matches.
func typeName(x []byte) bool {
	switch string(x) {
	case `"object"`, `"array"`, `"string"`, `"number"`, `"integer"`, `"boolean"`, `"null"`:
		return true
	}
	return false
}

// isType is validTypes[t], without the map's hashing.
func isType(t string) bool {
	switch t {
	case "object", "array", "string", "number", "integer", "boolean", "null":
		return true
	}
	return false
}

// leafValid is the keywordValid of metaValid2020 over raw JSON, for the
// keywords whose values hold no schema (the others are read by role).
func leafValid(k kw, x []byte) bool {
	switch k {
	case kwRef, kwString:
		return x[0] == '"'
	case kwType:
		switch x[0] {
		case '"':
			return typeName(x)
		case '[':
			return uniquePlainStrings(x, isType, true)
		}
		return false
	case kwExamples:
		return x[0] == '['
	case kwEnum:
		// Strings, booleans and null, each once, as metaValid2020 has it.
		return x[0] == '[' && uniquePlainStrings(x, nil, false)
	case kwMultipleOf:
		f, ok := numberValue(x)
		return ok && f > 0
	case kwNumber:
		_, ok := numberValue(x)
		return ok
	case kwCount:
		if !isNumber(x) || bytes.ContainsAny(x, ".eE-") {
			return false
		}
		_, err := strconv.ParseUint(unsafeString(x), 10, 64)
		return err == nil
	case kwBool:
		return x[0] == 't' || x[0] == 'f'
	case kwRequired:
		return x[0] == '[' && uniquePlainStrings(x, nil, true)
	case kwDependentRequired:
		if x[0] != '{' {
			return false
		}
		ok := true
		rawjson.EachMember(x, func(_, r []byte) bool {
			ok = r[0] == '[' && uniquePlainStrings(r, nil, true)
			return ok
		})
		return ok
	case kwSchemaURL, kwForbidden:
		return false
	}
	return true // const, default, example, an unknown keyword, or read by role
}

// uniquePlainStrings reports whether array a holds distinct values, each
// a string without escapes accepted by ok (nil: any); with onlyStrings
// unset, true, false and null may be among them too (enum). An empty
// array passes only with onlyStrings and a nil ok (required), as
// metaValid2020 has it.
func uniquePlainStrings(a []byte, ok func(string) bool, onlyStrings bool) bool {
	var seen [16][]byte
	var many map[string]bool
	n, good := 0, true
	rawjson.EachElem(a, func(e []byte) bool {
		switch e[0] {
		case '"':
			s, plain := plainString(e)
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

// plainString is the value of a JSON string without escapes whose bytes
// are valid UTF-8 (so that comparing raw bytes is comparing the decoded
// strings); plain is false for anything else.
func plainString(x []byte) (string, bool) {
	if len(x) < 2 || x[0] != '"' {
		return "", false
	}
	in := x[1 : len(x)-1]
	// Most are short and ASCII: one look at each byte, not two calls.
	for _, c := range in {
		if c == '\\' || c >= utf8.RuneSelf {
			if bytes.IndexByte(in, '\\') >= 0 || !utf8.Valid(in) {
				return "", false
			}
			break
		}
	}
	return unsafeString(in), true
}

func isNumber(x []byte) bool { return x[0] == '-' || x[0] >= '0' && x[0] <= '9' }

// numberValue is number for a raw JSON value.
func numberValue(x []byte) (float64, bool) {
	if !isNumber(x) {
		return 0, false
	}
	f, err := strconv.ParseFloat(unsafeString(x), 64)
	return f, err == nil
}

// unsafeString is b as a string for the length of a call that keeps no
// reference to it.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
