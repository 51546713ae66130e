package responsestest

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// checkFunction applies the API's rules for one function definition at
// param (tools[i], tools[i].tools[k], or a tool_search_output's
// input[i].tools[k]), with its messages:
//   - the name pattern;
//   - parameters a JSON Schema of type object;
//   - strict mode, which the Responses API applies unless "strict": false
//     is sent (its default is true): every object has additionalProperties
//     false and lists every property in required (spring-ai#6865,
//     SamSaffron/term-llm#180 on gpt-5.4).
func checkFunction(param string, raw json.RawMessage) *apiErr {
	var f struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
		Strict     *bool           `json:"strict"`
	}
	if json.Unmarshal(raw, &f) != nil {
		return bad(param, "Invalid type for '%s': expected an object.", param)
	}
	if f.Name == "" {
		return bad(param+".name", "Missing required parameter: '%s.name'.", param)
	}
	if !nameRE.MatchString(f.Name) {
		return bad(param+".name", "Invalid '%s.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.", param)
	}
	if len(f.Parameters) == 0 || string(f.Parameters) == "null" {
		return nil
	}
	var root map[string]json.RawMessage
	if json.Unmarshal(f.Parameters, &root) != nil {
		return bad(param+".parameters", "Invalid type for '%s.parameters': expected an object.", param)
	}
	var typ any
	_ = json.Unmarshal(root["type"], &typ)
	if typ != "object" {
		if typ == nil {
			typ = "None"
		}
		return bad(param+".parameters", "Invalid schema for function '%s': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"%v\"'.", f.Name, typ)
	}
	if f.Strict != nil && !*f.Strict {
		return nil
	}
	if msg := strictNode(root, nil); msg != "" {
		return bad(param+".parameters", "Invalid schema for function '%s': %s", f.Name, msg)
	}
	return nil
}

// strictNode checks one schema of a strict function: each object forbids
// additional properties and requires all of its properties.
func strictNode(n map[string]json.RawMessage, path []string) string {
	context := "()"
	if len(path) > 0 {
		q := make([]string, len(path))
		for i, p := range path {
			q[i] = "'" + p + "'"
		}
		context = "(" + strings.Join(q, ", ") + ")"
	}
	var typ any
	_ = json.Unmarshal(n["type"], &typ)
	isObject := typ == "object"
	if list, ok := typ.([]any); ok {
		for _, t := range list {
			isObject = isObject || t == "object"
		}
	}
	var props map[string]json.RawMessage
	_ = json.Unmarshal(n["properties"], &props)
	if isObject || props != nil {
		var ap any
		if json.Unmarshal(n["additionalProperties"], &ap) != nil || ap != false {
			return fmt.Sprintf("In context=%s, 'additionalProperties' is required to be supplied and to be false.", context)
		}
		var req []string
		_ = json.Unmarshal(n["required"], &req)
		have := map[string]bool{}
		for _, r := range req {
			have[r] = true
		}
		names := make([]string, 0, len(props))
		for k := range props {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if !have[k] {
				return fmt.Sprintf("In context=%s, 'required' is required to be supplied and to be an array including every key in properties. Missing '%s'.", context, k)
			}
		}
		for _, r := range req {
			if _, ok := props[r]; !ok {
				return fmt.Sprintf("In context=%s, 'required' is required to be supplied and to be an array including every key in properties. Extra required key '%s' supplied.", context, r)
			}
		}
		for _, k := range names {
			var p map[string]json.RawMessage
			if json.Unmarshal(props[k], &p) == nil {
				if msg := strictNode(p, append(append([]string(nil), path...), "properties", k)); msg != "" {
					return msg
				}
			}
		}
	}
	var items map[string]json.RawMessage
	if json.Unmarshal(n["items"], &items) == nil && items != nil {
		if msg := strictNode(items, append(append([]string(nil), path...), "items")); msg != "" {
			return msg
		}
	}
	for _, key := range []string{"anyOf", "$defs", "definitions"} {
		switch key {
		case "anyOf":
			var alts []map[string]json.RawMessage
			_ = json.Unmarshal(n[key], &alts)
			for i, a := range alts {
				if msg := strictNode(a, append(append([]string(nil), path...), key, fmt.Sprint(i))); msg != "" {
					return msg
				}
			}
		default:
			var defs map[string]map[string]json.RawMessage
			_ = json.Unmarshal(n[key], &defs)
			names := make([]string, 0, len(defs))
			for k := range defs {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				if msg := strictNode(defs[k], append(append([]string(nil), path...), key, k)); msg != "" {
					return msg
				}
			}
		}
	}
	return ""
}
