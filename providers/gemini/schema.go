package gemini

import (
	"encoding/json"
	"sort"
	"strings"
)

// The Gemini dialect: function parameters are an OpenAPI 3.0 Schema
// subset. Keywords outside it are a 400 ("Unknown name ... Cannot find
// field"), so MCP schemas are converted: local $refs inlined, const to a
// one-value enum, type lists to a type plus nullable, enums as strings,
// formats the API takes kept, everything else dropped.

// schemaKeywords are the Schema fields the API accepts.
var schemaKeywords = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true, "enum": true,
	"maxItems": true, "minItems": true, "properties": true, "required": true, "minProperties": true,
	"maxProperties": true, "minLength": true, "maxLength": true, "pattern": true, "example": true,
	"anyOf": true, "propertyOrdering": true, "default": true, "items": true, "minimum": true, "maximum": true,
}

// SchemaKeywords lists the accepted keywords, sorted (for the fake).
func SchemaKeywords() []string {
	out := make([]string, 0, len(schemaKeywords))
	for k := range schemaKeywords {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

const maxDepth = 24

// convertSchema turns a JSON Schema into the Gemini dialect. ok is false
// when the top level takes no parameters (no properties), in which case
// the declaration is sent without "parameters".
func convertSchema(raw json.RawMessage) (json.RawMessage, bool) {
	var root map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &root) != nil || root == nil {
		return nil, false
	}
	out := convert(root, root, 0)
	if props, _ := out["properties"].(map[string]any); len(props) == 0 {
		return nil, false
	}
	out["type"] = "object"
	b, err := marshal(out)
	if err != nil {
		return nil, false
	}
	return b, true
}

func convert(s, root map[string]any, depth int) map[string]any {
	out := map[string]any{}
	if depth > maxDepth {
		out["type"] = "string"
		return out
	}
	if ref, ok := s["$ref"].(string); ok {
		if target := resolve(root, ref); target != nil {
			merged := map[string]any{}
			for k, v := range target {
				merged[k] = v
			}
			for k, v := range s {
				if k != "$ref" {
					merged[k] = v
				}
			}
			s = merged
		} else {
			return map[string]any{"type": "string", "description": "(unresolved schema " + ref + ")"}
		}
	}
	// allOf of objects merges into one; oneOf reads as anyOf.
	if all, ok := s["allOf"].([]any); ok {
		merged := map[string]any{}
		for k, v := range s {
			if k != "allOf" {
				merged[k] = v
			}
		}
		for _, a := range all {
			if m, ok := a.(map[string]any); ok {
				mergeInto(merged, m)
			}
		}
		s = merged
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, ok := s[k].([]any)
		if !ok {
			continue
		}
		var conv []any
		nullable := false
		for _, a := range alts {
			m, ok := a.(map[string]any)
			if !ok {
				continue
			}
			if t, _ := m["type"].(string); t == "null" {
				nullable = true
				continue
			}
			conv = append(conv, convert(m, root, depth+1))
		}
		switch len(conv) {
		case 0:
		case 1:
			for k2, v := range conv[0].(map[string]any) {
				out[k2] = v
			}
		default:
			out["anyOf"] = conv
		}
		if nullable {
			out["nullable"] = true
		}
	}
	switch t := s["type"].(type) {
	case string:
		if t != "null" {
			out["type"] = t
		}
	case []any:
		for _, x := range t {
			if xs, _ := x.(string); xs == "null" {
				out["nullable"] = true
			} else if xs != "" && out["type"] == nil {
				out["type"] = xs
			}
		}
	}
	if c, ok := s["const"]; ok {
		out["enum"] = []any{c}
	}
	if out["type"] == nil && out["anyOf"] == nil {
		switch {
		case s["properties"] != nil:
			out["type"] = "object"
		case s["items"] != nil:
			out["type"] = "array"
		case s["enum"] != nil || out["enum"] != nil:
			out["type"] = "string"
		}
	}
	for k, v := range s {
		switch k {
		case "description", "title", "pattern", "minLength", "maxLength", "minItems", "maxItems",
			"minimum", "maximum", "minProperties", "maxProperties", "nullable":
			out[k] = v
		case "enum":
			var vals []any
			for _, e := range v.([]any) {
				if e == nil {
					out["nullable"] = true
					continue
				}
				vals = append(vals, stringOf(e))
			}
			if len(vals) > 0 {
				out["enum"] = vals
			}
		case "format":
			if f, _ := v.(string); keepFormat(out["type"], f) {
				out["format"] = f
			}
		case "properties":
			props, _ := v.(map[string]any)
			cp := map[string]any{}
			for name, p := range props {
				if m, ok := p.(map[string]any); ok {
					cp[name] = convert(m, root, depth+1)
				}
			}
			out["properties"] = cp
		case "required":
			out["required"] = v
		case "items":
			if m, ok := v.(map[string]any); ok {
				out["items"] = convert(m, root, depth+1)
			} else if arr, ok := v.([]any); ok && len(arr) > 0 {
				if m, ok := arr[0].(map[string]any); ok {
					out["items"] = convert(m, root, depth+1)
				}
			}
		}
	}
	if e, ok := out["enum"].([]any); ok && len(e) > 0 {
		out["type"] = "string" // the API takes string enums only
		delete(out, "format")
		out["format"] = "enum"
	}
	if out["type"] == "array" && out["items"] == nil {
		out["items"] = map[string]any{"type": "string"}
	}
	// A required name must be a property.
	if req, ok := out["required"].([]any); ok {
		props, _ := out["properties"].(map[string]any)
		var keep []any
		for _, r := range req {
			if n, ok := r.(string); ok && props[n] != nil {
				keep = append(keep, n)
			}
		}
		if len(keep) == 0 {
			delete(out, "required")
		} else {
			out["required"] = keep
		}
	}
	return out
}

func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		switch k {
		case "properties":
			dp, _ := dst["properties"].(map[string]any)
			if dp == nil {
				dp = map[string]any{}
			}
			if sp, ok := v.(map[string]any); ok {
				for n, p := range sp {
					dp[n] = p
				}
			}
			dst["properties"] = dp
		case "required":
			dr, _ := dst["required"].([]any)
			if sr, ok := v.([]any); ok {
				dst["required"] = append(dr, sr...)
			}
		default:
			if _, ok := dst[k]; !ok {
				dst[k] = v
			}
		}
	}
}

// resolve follows a local reference (#/$defs/X, #/definitions/X).
func resolve(root map[string]any, ref string) map[string]any {
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = root
	for _, seg := range strings.Split(p, "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")]
	}
	m, _ := cur.(map[string]any)
	return m
}

func keepFormat(typ any, f string) bool {
	switch typ {
	case "string":
		return f == "date-time" || f == "enum"
	case "integer":
		return f == "int32" || f == "int64"
	case "number":
		return f == "float" || f == "double"
	}
	return false
}

func stringOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
