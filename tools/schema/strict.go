package schema

import (
	"encoding/json"
	"sort"
)

// ToStrict converts a schema to OpenAI's strict-mode rules: every object
// has additionalProperties false and lists all its properties as required;
// a property that was optional accepts null instead, so the model can
// still leave it out in effect. Keywords strict mode does not take
// (patternProperties, unevaluatedProperties, $schema...) are dropped.
func ToStrict(schema json.RawMessage) json.RawMessage {
	root, ok := decode(schema)
	if !ok {
		return schema
	}
	return encode(strictNode(root))
}

var strictDrop = map[string]bool{"$schema": true, "$id": true, "patternProperties": true, "unevaluatedProperties": true,
	"propertyNames": true, "dependentRequired": true, "dependentSchemas": true, "if": true, "then": true, "else": true,
	"contains": true, "minContains": true, "maxContains": true, "default": true, "examples": true}

func strictNode(n any) any {
	switch v := n.(type) {
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = strictNode(x)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if strictDrop[k] {
				continue
			}
			switch k {
			case "properties", "$defs", "definitions":
				pm, _ := x.(map[string]any)
				conv := map[string]any{}
				for pk, pv := range pm {
					conv[pk] = strictNode(pv)
				}
				out[k] = conv
			case "enum", "const":
				out[k] = x
			default:
				out[k] = strictNode(x)
			}
		}
		props, isObj := out["properties"].(map[string]any)
		if isObj || out["type"] == "object" {
			out["additionalProperties"] = false
			req := map[string]bool{}
			if r, ok := v["required"].([]any); ok {
				for _, x := range r {
					if s, ok := x.(string); ok {
						req[s] = true
					}
				}
			}
			names := make([]string, 0, len(props))
			for name := range props {
				names = append(names, name)
				if !req[name] {
					props[name] = nullable(props[name])
				}
			}
			sort.Strings(names)
			all := make([]any, len(names))
			for i, n := range names {
				all[i] = n
			}
			out["required"] = all
		}
		return out
	}
	return n
}

// nullable lets a schema also accept null.
func nullable(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	switch t := m["type"].(type) {
	case string:
		if t != "null" {
			m["type"] = []any{t, "null"}
		}
	case []any:
		for _, x := range t {
			if x == "null" {
				return m
			}
		}
		m["type"] = append(t, "null")
	default:
		return map[string]any{"anyOf": []any{m, map[string]any{"type": "null"}}}
	}
	return m
}
