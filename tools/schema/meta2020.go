package schema

import (
	"encoding/json"
	"strconv"
	"strings"
)

// metaValid2020 reports whether a schema certainly passes the draft 2020-12
// meta-schema (and so draft-07's: fastDialects), by the shape each keyword's value must have there. It only
// ever answers true for what the meta-schema accepts; anything it is not
// sure of (a keyword it does not model, a number written with a fraction
// or an exponent where an integer is wanted) answers false, and Check then
// asks the JSON Schema library, whose message names the problem. The
// library's validation costs about 0.3 ms a schema and 45 KB of garbage
// (its meta-schema is all $dynamicRef), which a cold start paid for every
// tool of every server; this walk costs a few µs. Formats are not asserted
// by the meta-schema (a "pattern" is any string), and unknown keywords are
// allowed, as the library has them. TestMeta2020AgreesWithLibrary holds it
// to the library.
//
// v is decoded with json.Decoder.UseNumber, so integers are read exactly.
func metaValid2020(v any) bool {
	switch s := v.(type) {
	case bool:
		return true
	case map[string]any:
		for k, x := range s {
			if !keywordValid(k, x) {
				return false
			}
		}
		return true
	}
	return false
}

func keywordValid(k string, x any) bool {
	switch k {
	case "$ref", "$dynamicRef", "$recursiveRef", "$comment", "title", "description", "format",
		"contentEncoding", "contentMediaType", "pattern":
		_, ok := x.(string)
		return ok
	case "$defs", "definitions", "properties", "patternProperties", "dependentSchemas":
		m, ok := x.(map[string]any)
		if !ok {
			return false
		}
		for _, s := range m {
			if !metaValid2020(s) {
				return false
			}
		}
		return true
	case "prefixItems", "allOf", "anyOf", "oneOf":
		a, ok := x.([]any)
		if !ok || len(a) == 0 {
			return false
		}
		for _, s := range a {
			if !metaValid2020(s) {
				return false
			}
		}
		return true
	case "items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return metaValid2020(x)
	case "type":
		if t, ok := x.(string); ok {
			return validTypes[t]
		}
		a, ok := x.([]any)
		return ok && len(a) > 0 && uniqueStrings(a, func(s string) bool { return validTypes[s] })
	case "const", "default":
		return true
	case "examples":
		_, ok := x.([]any)
		return ok
	case "enum":
		// Draft-07 wants at least one value, each once (2020-12 does
		// not): strings, booleans and null, each once, are sure; numbers
		// (1 equals 1.0) and objects are left to the library.
		a, ok := x.([]any)
		if !ok || len(a) == 0 {
			return false
		}
		seen := make(map[any]bool, len(a))
		for _, v := range a {
			switch v.(type) {
			case string, bool, nil:
			default:
				return false
			}
			if seen[v] {
				return false
			}
			seen[v] = true
		}
		return true
	case "multipleOf":
		f, ok := number(x)
		return ok && f > 0
	case "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum":
		_, ok := number(x)
		return ok
	case "maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties":
		n, ok := x.(json.Number)
		if !ok || strings.ContainsAny(string(n), ".eE-") {
			return false // a fraction or exponent: the library decides
		}
		_, err := strconv.ParseUint(string(n), 10, 64)
		return err == nil
	case "uniqueItems", "deprecated", "readOnly", "writeOnly":
		_, ok := x.(bool)
		return ok
	case "required":
		a, ok := x.([]any)
		return ok && uniqueStrings(a, nil)
	case "dependentRequired":
		m, ok := x.(map[string]any)
		if !ok {
			return false
		}
		for _, r := range m {
			if a, ok := r.([]any); !ok || !uniqueStrings(a, nil) {
				return false
			}
		}
		return true
	case "dependencies":
		m, ok := x.(map[string]any)
		if !ok {
			return false
		}
		for _, d := range m {
			if a, ok := d.([]any); ok {
				if !uniqueStrings(a, nil) {
					return false
				}
			} else if !metaValid2020(d) {
				return false
			}
		}
		return true
	case "$schema", "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary":
		// Patterns, or a change of dialect or base: left to the library.
		return false
	}
	// Not a keyword of draft 2020-12: the meta-schema allows it.
	return true
}

// number reads a JSON number's value; a value float64 cannot hold (out of
// range) is not sure.
func number(x any) (float64, bool) {
	n, ok := x.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil
}

// uniqueStrings reports whether a holds only strings, each once, each
// accepted by ok (nil: any).
func uniqueStrings(a []any, ok func(string) bool) bool {
	seen := make(map[string]bool, len(a))
	for _, x := range a {
		s, isStr := x.(string)
		if !isStr || seen[s] || ok != nil && !ok(s) {
			return false
		}
		seen[s] = true
	}
	return true
}
