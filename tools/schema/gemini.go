package schema

import (
	"encoding/json"
	"fmt"
	"strings"
)

// geminiKeys are the Schema fields Gemini's function declarations take
// (its OpenAPI 3.0 subset); anything else is rejected with a 400 ("Invalid
// JSON payload received. Unknown name ..."), so it is dropped.
var geminiKeys = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true, "enum": true,
	"maxItems": true, "minItems": true, "properties": true, "required": true, "minProperties": true,
	"maxProperties": true, "minLength": true, "maxLength": true, "pattern": true, "anyOf": true,
	"propertyOrdering": true, "items": true, "minimum": true, "maximum": true,
}

// geminiFormats are the string formats Gemini accepts.
var geminiFormats = map[string]bool{"enum": true, "date-time": true}

const maxRefDepth = 8

// ToGemini converts a JSON Schema to the subset Gemini accepts: local $refs
// inlined ($defs dropped), $schema, additionalProperties and the other
// keywords it does not know dropped, const turned into a one-value enum,
// enums of non-strings dropped (Gemini takes string enums only), a type
// list with "null" turned into the type plus nullable, oneOf read as anyOf,
// allOf merged, formats it does not know dropped, required trimmed to the
// properties that exist. A schema that is not a JSON object is returned
// unchanged (Check has quarantined such tools already).
func ToGemini(schema json.RawMessage) json.RawMessage {
	root, ok := decode(schema)
	if !ok {
		return schema
	}
	out := geminiNode(root, root, 0)
	if out == nil || out["type"] == nil && out["anyOf"] == nil {
		// No parameters (or none Gemini can declare): the caller leaves
		// the declaration's parameters out.
		out = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	return encode(out)
}

// freeForm turns what Gemini cannot declare into what it takes, for a node
// below the root, and reports whether the node became JSON text. Gemini
// answers with a 400:
//   - an OBJECT without properties ("should be non-empty for OBJECT type";
//     a map has no presence in its proto, so {"type":"object"} is the same
//     as empty properties);
//   - a schema without a type ("type: must be specified",
//     home-assistant/core#122403; "items: missing field.",
//     anomalyco/opencode#11952);
//   - properties or required on another type ("only allowed for OBJECT
//     type"), format outside STRING, NUMBER, INTEGER.
//
// A free-form object and an untyped value (any JSON) become a string that
// holds the value as JSON text, which ArgsFromGemini decodes again, so the
// tool still receives what its schema says.
func freeForm(out map[string]any) bool {
	props, _ := out["properties"].(map[string]any)
	if out["type"] != "object" {
		delete(out, "properties")
		delete(out, "required")
	}
	text := out["type"] == "object" && len(props) == 0 || out["type"] == nil && out["anyOf"] == nil
	if text {
		what := "a JSON value"
		if out["type"] == "object" {
			what = "a JSON object"
		}
		for _, k := range []string{"properties", "required", "enum", "format", "minProperties", "maxProperties"} {
			delete(out, k)
		}
		out["type"] = "string"
		if d, _ := out["description"].(string); d != "" {
			out["description"] = d + " (" + what + ", as text)"
		} else {
			out["description"] = strings.ToUpper(what[:1]) + what[1:] + ", as text."
		}
	}
	if f, ok := out["format"]; ok && f != "enum" {
		switch out["type"] {
		case "string", "number", "integer":
		default:
			delete(out, "format")
		}
	}
	return text
}

func geminiNode(n any, root map[string]any, depth int) map[string]any {
	m, ok := n.(map[string]any)
	if !ok {
		return nil
	}
	if ref, ok := m["$ref"].(string); ok {
		if depth >= maxRefDepth {
			return map[string]any{"type": "object"} // a recursive type: cut
		}
		target := resolve(root, ref)
		if target == nil {
			return map[string]any{"type": "object"}
		}
		merged := map[string]any{}
		for k, v := range target {
			merged[k] = v
		}
		for k, v := range m {
			if k != "$ref" {
				merged[k] = v
			}
		}
		return geminiNode(merged, root, depth+1)
	}
	if all, ok := m["allOf"].([]any); ok {
		merged := map[string]any{}
		for k, v := range m {
			if k != "allOf" {
				merged[k] = v
			}
		}
		for _, part := range all {
			pm, _ := part.(map[string]any)
			if r, ok := pm["$ref"].(string); ok {
				pm = resolve(root, r)
			}
			mergeInto(merged, pm)
		}
		return geminiNode(merged, root, depth+1)
	}
	out := map[string]any{}
	for k, v := range m {
		switch k {
		case "oneOf", "anyOf":
			var alts []any
			nullable := false
			list, _ := v.([]any)
			for _, alt := range list {
				if am, ok := alt.(map[string]any); ok && am["type"] == "null" {
					nullable = true
					continue
				}
				if g := geminiNode(alt, root, depth+1); g != nil {
					alts = append(alts, g)
				}
			}
			if len(alts) > 1 {
				// An alternative Gemini cannot declare (a free-form
				// object) is left out while others remain.
				var typed []any
				for _, a := range alts {
					if !freeForm(a.(map[string]any)) {
						typed = append(typed, a)
					}
				}
				if len(typed) > 0 {
					alts = typed
				}
			}
			switch {
			case len(alts) == 1:
				for ak, av := range alts[0].(map[string]any) {
					if _, set := out[ak]; !set {
						out[ak] = av
					}
				}
			case len(alts) > 1:
				out["anyOf"] = alts
			}
			if nullable {
				out["nullable"] = true
			}
		case "const":
			if s, ok := v.(string); ok {
				out["enum"] = []any{s}
			}
		case "enum":
			list, _ := v.([]any)
			var strs []any
			allStrings := len(list) > 0
			for _, e := range list {
				s, ok := e.(string)
				if !ok {
					if e == nil {
						out["nullable"] = true
						continue
					}
					allStrings = false
					break
				}
				strs = append(strs, s)
			}
			if allStrings && len(strs) > 0 {
				out["enum"] = strs
			}
		case "type":
			switch t := v.(type) {
			case string:
				if t == "null" {
					out["nullable"] = true
				} else {
					out["type"] = t
				}
			case []any:
				var kinds []string
				for _, x := range t {
					if s, _ := x.(string); s == "null" {
						out["nullable"] = true
					} else if s != "" {
						kinds = append(kinds, s)
					}
				}
				if len(kinds) >= 1 {
					out["type"] = kinds[0] // Gemini takes one type per schema
				}
			}
		case "properties":
			props, _ := v.(map[string]any)
			conv := map[string]any{}
			for name, p := range props {
				g := geminiNode(p, root, depth+1)
				if g == nil {
					g = map[string]any{}
				}
				freeForm(g)
				conv[name] = g
			}
			out["properties"] = conv
		case "items":
			switch it := v.(type) {
			case map[string]any:
				if g := geminiNode(it, root, depth+1); g != nil {
					freeForm(g)
					out["items"] = g
				}
			case []any: // tuple form: the first item's schema
				if len(it) > 0 {
					if g := geminiNode(it[0], root, depth+1); g != nil {
						freeForm(g)
						out["items"] = g
					}
				}
			}
		case "format":
			if s, _ := v.(string); geminiFormats[s] {
				out["format"] = s
			}
		case "required":
			out["required"] = v
		case "exclusiveMinimum", "exclusiveMaximum":
			// Draft 2020-12 numbers: the nearest inclusive bound Gemini takes.
			if _, isBool := v.(bool); !isBool {
				key := "minimum"
				if k == "exclusiveMaximum" {
					key = "maximum"
				}
				if _, set := m[key]; !set {
					out[key] = v
				}
			}
		default:
			if geminiKeys[k] {
				out[k] = v
			}
		}
	}
	if _, ok := out["enum"]; ok {
		out["type"] = "string" // Gemini's enums are strings
	}
	if _, ok := out["properties"]; ok && out["type"] == nil {
		out["type"] = "object"
	}
	if out["type"] == "array" && out["items"] == nil {
		out["items"] = map[string]any{"type": "string"}
	}
	trimRequired(out)
	return out
}

// trimRequired keeps the required names that are properties (Gemini
// rejects "property is not defined" otherwise).
func trimRequired(out map[string]any) {
	req, ok := out["required"].([]any)
	if !ok {
		delete(out, "required")
		return
	}
	props, _ := out["properties"].(map[string]any)
	var keep []any
	for _, r := range req {
		if s, ok := r.(string); ok {
			if _, exists := props[s]; exists {
				keep = append(keep, s)
			}
		}
	}
	if len(keep) == 0 {
		delete(out, "required")
	} else {
		out["required"] = keep
	}
}

// resolve finds a local reference (#/$defs/X, #/definitions/X, #).
func resolve(root map[string]any, ref string) map[string]any {
	if ref == "#" {
		return root
	}
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = root
	for _, seg := range strings.Split(p, "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[seg]
	}
	m, _ := cur.(map[string]any)
	return m
}

// mergeInto folds an allOf member into dst: properties and required are
// unions, other keywords keep dst's value.
func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		switch k {
		case "properties":
			dp, _ := dst["properties"].(map[string]any)
			if dp == nil {
				dp = map[string]any{}
			}
			sp, _ := v.(map[string]any)
			for pk, pv := range sp {
				if _, set := dp[pk]; !set {
					dp[pk] = pv
				}
			}
			dst["properties"] = dp
		case "required":
			dr, _ := dst["required"].([]any)
			sr, _ := v.([]any)
			seen := map[string]bool{}
			for _, r := range dr {
				seen[fmt.Sprint(r)] = true
			}
			for _, r := range sr {
				if !seen[fmt.Sprint(r)] {
					dr = append(dr, r)
				}
			}
			dst["required"] = dr
		default:
			if _, set := dst[k]; !set {
				dst[k] = v
			}
		}
	}
}

// ArgsFromGemini undoes ToGemini's JSON-text stand-ins in a call's
// arguments: where the original schema takes something other than a
// string (a free-form object, any value) and the model sent a string that
// holds a JSON object or array, the decoded value takes its place. args
// come back unchanged (the same bytes) when nothing was decoded.
func ArgsFromGemini(schema, args json.RawMessage) json.RawMessage {
	root, ok := decode(schema)
	if !ok {
		return args
	}
	var v any
	if json.Unmarshal(args, &v) != nil {
		return args
	}
	out, changed := fromText(root, root, v, 0)
	if !changed {
		return args
	}
	b, err := json.Marshal(out)
	if err != nil {
		return args
	}
	return b
}

func fromText(s, root map[string]any, v any, depth int) (any, bool) {
	if s == nil || depth > maxRefDepth*4 {
		return v, false
	}
	if ref, ok := s["$ref"].(string); ok {
		return fromText(resolve(root, ref), root, v, depth+1)
	}
	switch x := v.(type) {
	case string:
		if takesString(s, root, depth) {
			return v, false
		}
		var dec any
		if json.Unmarshal([]byte(x), &dec) != nil {
			return v, false
		}
		switch dec.(type) {
		case map[string]any, []any:
			out, _ := fromText(s, root, dec, depth+1)
			return out, true
		}
	case map[string]any:
		changed := false
		for _, props := range propertySets(s, root) {
			for k, ps := range props {
				pm, _ := ps.(map[string]any)
				if val, ok := x[k]; ok && pm != nil {
					if nv, c := fromText(pm, root, val, depth+1); c {
						x[k], changed = nv, true
					}
				}
			}
		}
		return x, changed
	case []any:
		items, _ := s["items"].(map[string]any)
		changed := false
		for i, el := range x {
			if nv, c := fromText(items, root, el, depth+1); c {
				x[i], changed = nv, true
			}
		}
		return x, changed
	}
	return v, false
}

// takesString reports whether a schema accepts a string as it stands: its
// type is or includes string, or one of its alternatives takes one.
func takesString(s, root map[string]any, depth int) bool {
	if ref, ok := s["$ref"].(string); ok && depth < maxRefDepth*4 {
		if t := resolve(root, ref); t != nil {
			return takesString(t, root, depth+1)
		}
	}
	switch t := s["type"].(type) {
	case string:
		return t == "string"
	case []any:
		for _, x := range t {
			if x == "string" {
				return true
			}
		}
		return false
	}
	if _, ok := s["const"].(string); ok {
		return true
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		_, str := e[0].(string)
		return str
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		alts, _ := s[k].([]any)
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok && takesString(am, root, depth+1) {
				return true
			}
		}
	}
	return false
}

// propertySets lists the properties a schema declares, its own and its
// allOf members'.
func propertySets(s, root map[string]any) []map[string]any {
	var out []map[string]any
	if p, ok := s["properties"].(map[string]any); ok {
		out = append(out, p)
	}
	all, _ := s["allOf"].([]any)
	for _, a := range all {
		am, _ := a.(map[string]any)
		if r, ok := am["$ref"].(string); ok {
			am = resolve(root, r)
		}
		if p, ok := am["properties"].(map[string]any); ok {
			out = append(out, p)
		}
	}
	return out
}
