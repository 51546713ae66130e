package geminitest

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// SchemaRules applies the checks Gemini makes of a function declaration's
// parameters once the JSON has parsed (checkSchema's unknown names come
// first), and returns the API's message for the first violation, or "".
// at is the declaration's path, e.g.
// "tools[0].function_declarations[3].parameters"; nested schemas are named
// as the API names them (properties[NAME], items).
//
// Each rule is one the API answers with a 400 INVALID_ARGUMENT, in its words:
//   - an OBJECT without properties: "properties: should be non-empty for
//     OBJECT type" (mcp-obsidian#21, CherryHQ/cherry-studio#3270,
//     home-assistant/core#122403; a map field has no presence in the proto,
//     so an absent properties is the empty one);
//   - properties or required on another type: "only allowed for OBJECT type"
//     (anomalyco/opencode#11889);
//   - enum on a type other than STRING: "only allowed for STRING type"
//     (nanbingxyz/5ire#218, decolua/9router#380);
//   - format on a type other than NUMBER, INTEGER, STRING
//     (home-assistant/core#122403);
//   - an ARRAY whose items are missing or have no type: "items: missing
//     field." (cline/cline#7339, anomalyco/opencode#11952);
//   - a required name that is not a property: "property is not defined";
//   - a schema with neither a type nor anyOf: "type: must be specified"
//     (home-assistant/core#122403; the Schema reference marks type
//     required).
//
// The chat fake applies them too on Gemini's OpenAI-compatible endpoint,
// which converts to the same declarations.
func SchemaRules(raw json.RawMessage, at string) string {
	var n map[string]json.RawMessage
	if json.Unmarshal(raw, &n) != nil {
		return ""
	}
	return schemaNode(n, at)
}

func schemaNode(n map[string]json.RawMessage, at string) string {
	bad := func(field, msg string) string {
		return fmt.Sprintf("* GenerateContentRequest.%s.%s: %s", at, field, msg)
	}
	var typ string
	_ = json.Unmarshal(n["type"], &typ)
	typ = strings.ToUpper(typ)
	var props map[string]json.RawMessage
	_ = json.Unmarshal(n["properties"], &props)
	_, hasProps := n["properties"]
	_, hasRequired := n["required"]
	_, hasAnyOf := n["anyOf"]
	switch {
	case typ == "" && !hasAnyOf:
		return bad("type", "must be specified")
	case hasProps && typ != "OBJECT":
		return bad("properties", "only allowed for OBJECT type")
	case hasRequired && typ != "OBJECT":
		return bad("required", "only allowed for OBJECT type")
	case typ == "OBJECT" && len(props) == 0:
		return bad("properties", "should be non-empty for OBJECT type")
	}
	if _, ok := n["enum"]; ok && typ != "STRING" {
		return bad("enum", "only allowed for STRING type")
	}
	if _, ok := n["format"]; ok && typ != "STRING" && typ != "NUMBER" && typ != "INTEGER" {
		return bad("format", "format is only supported for NUMBER, INTEGER and STRING type")
	}
	if hasRequired {
		var req []string
		_ = json.Unmarshal(n["required"], &req)
		for i, r := range req {
			if _, ok := props[r]; !ok {
				return bad(fmt.Sprintf("required[%d]", i), "property is not defined")
			}
		}
	}
	if typ == "ARRAY" {
		var items map[string]json.RawMessage
		_ = json.Unmarshal(n["items"], &items)
		_, typed := items["type"]
		_, alts := items["anyOf"]
		if !typed && !alts {
			return fmt.Sprintf("* GenerateContentRequest.%s.items: missing field.", at)
		}
		if msg := schemaNode(items, at+".items"); msg != "" {
			return msg
		}
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		var p map[string]json.RawMessage
		if json.Unmarshal(props[k], &p) != nil {
			continue
		}
		if msg := schemaNode(p, at+".properties["+k+"]"); msg != "" {
			return msg
		}
	}
	if hasAnyOf {
		var list []map[string]json.RawMessage
		_ = json.Unmarshal(n["anyOf"], &list)
		for i, a := range list {
			if msg := schemaNode(a, fmt.Sprintf("%s.any_of[%d]", at, i)); msg != "" {
				return msg
			}
		}
	}
	return ""
}
