// Package schema checks tool input schemas and converts them to the JSON
// Schema dialect a model accepts. A tool's schema is checked once, when the
// catalog loads: an invalid one would make every request carrying it a 400,
// so the tool is quarantined instead. The conversion (Gemini's OpenAPI
// subset, OpenAI's strict mode) is done per request by the adapters, from
// the original, which stays what arguments are validated against.
//
// The package imports nothing of the project but internal/rawjson; the
// dialect names are the models package's ("jsonschema", "openai-strict",
// "gemini").
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Dialect names, as the models table spells them.
const (
	JSONSchema   = "jsonschema"
	OpenAIStrict = "openai-strict"
	Gemini       = "gemini"
)

var validTypes = map[string]bool{"object": true, "array": true, "string": true, "number": true, "integer": true, "boolean": true, "null": true}

// Check reports what makes schema unusable as a tool's input schema: not a
// JSON object, not a valid JSON Schema (an unknown type such as "objekt",
// a keyword of the wrong kind, a $ref that resolves nowhere), or a top
// level that is not an object schema. nil means every provider can take it
// (after its dialect's conversion).
func Check(schema json.RawMessage) error {
	s := bytes.TrimSpace(schema)
	if len(s) == 0 {
		return nil // no schema: adapters send an empty object schema
	}
	// The same schema is checked once a process: tools.Set checks it as it
	// registers the tool, the MCP catalog cache again as it saves the list.
	key := maphash.Bytes(checkSeed, s)
	if v, ok := checkedSchemas.Load(key); ok {
		return v.(checkResult).err
	}
	var err error
	if !quickValid(s) {
		err = check(s)
	}
	checkedSchemas.Store(key, checkResult{err})
	return err
}

var (
	checkSeed      = maphash.MakeSeed()
	checkedSchemas sync.Map // maphash of a schema -> checkResult
)

type checkResult struct{ err error }

func check(s []byte) error {
	top, ok := decodeObject(s)
	if !ok {
		return fmt.Errorf("the schema is not a JSON object")
	}
	if t, ok := top["type"]; ok && t != "object" {
		return fmt.Errorf("the top-level type is %s, not \"object\"", describe(t))
	}
	if err := checkTypes(top, ""); err != nil {
		return err
	}
	url := metaURL(top["$schema"])
	if !metaWalk || !fastDialects[url] || !metaValidTop(top) {
		// The schema is checked against its draft's meta-schema,
		// compiled once for the process (compiling each tool's schema
		// costs ~130 µs, too much for 5,000 tools at start).
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s))
		if err != nil {
			return fmt.Errorf("the schema is not valid JSON: %v", err)
		}
		meta, err := metaFor(url)
		if err != nil {
			return err
		}
		if err := meta.Validate(doc); err != nil {
			return fmt.Errorf("invalid schema: %s", validationMessage(err))
		}
	}
	return checkRefs(top, top, "")
}

// decodeObject decodes a JSON object whole (nothing after it), its numbers
// kept as written (json.Number), as the JSON Schema library reads them.
func decodeObject(s []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(s))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil || top == nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return top, true
}

// metaValidTop is metaValid2020 for a top level, whose $schema (when
// present) already named draft 2020-12.
func metaValidTop(top map[string]any) bool {
	for k, x := range top {
		if k == "$schema" {
			if _, ok := x.(string); !ok {
				return false
			}
		} else if !keywordValid(k, x) {
			return false
		}
	}
	return true
}

var metas sync.Map // meta-schema URL -> *jsonschema.Schema

const (
	draft2020 = "https://json-schema.org/draft/2020-12/schema"
	draft07   = "https://json-schema.org/draft-07/schema"
)

// fastDialects are the meta-schemas metaValid2020 stands in for: draft
// 2020-12's keyword rules are, keyword by keyword, the same as draft-07's
// or stricter (draft-07 has no prefixItems, $defs, dependentRequired...:
// any value of those is valid there), so what it calls valid both accept.
var fastDialects = map[string]bool{draft2020: true, draft07: true}

// metaWalk is false only in BenchmarkCheckCatalogs, to measure what the
// walk saves against the library alone.
var metaWalk = true

// metaURL is the meta-schema a schema declares; an unknown or missing
// $schema is read as draft 2020-12, as the providers do.
func metaURL(declared any) string {
	url, _ := declared.(string)
	url = strings.TrimSuffix(strings.Replace(url, "http://", "https://", 1), "#")
	switch url {
	case draft07, "https://json-schema.org/draft-06/schema",
		"https://json-schema.org/draft-04/schema", "https://json-schema.org/draft/2019-09/schema", draft2020:
		return url
	}
	return draft2020
}

// metaFor compiles (once) the meta-schema of url (metaURL).
func metaFor(url string) (*jsonschema.Schema, error) {
	if m, ok := metas.Load(url); ok {
		return m.(*jsonschema.Schema), nil
	}
	m, err := jsonschema.NewCompiler().Compile(url)
	if err != nil {
		return nil, fmt.Errorf("meta-schema %s: %v", url, err)
	}
	metas.Store(url, m)
	return m, nil
}

// checkRefs resolves every local $ref; a remote one is left alone (the
// providers do not fetch them either, and most never appear).
func checkRefs(n any, root map[string]any, at string) error {
	switch v := n.(type) {
	case map[string]any:
		if isSchemaMap(at) {
			return eachSchema(v, at, func(x any, where string) error { return checkRefs(x, root, where) })
		}
		if ref, ok := v["$ref"].(string); ok && strings.HasPrefix(ref, "#") && resolve(root, ref) == nil {
			return fmt.Errorf("$ref %q resolves to nothing (at %s)", ref, orTop(at))
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			if k != "enum" && k != "const" && k != "default" && k != "examples" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := checkRefs(v[k], root, at+"/"+k); err != nil {
				return err
			}
		}
	case []any:
		for i, x := range v {
			if err := checkRefs(x, root, fmt.Sprintf("%s/%d", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func orTop(at string) string {
	if at == "" {
		return "the top level"
	}
	return at
}

func validationMessage(err error) string {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		leaf := ve
		for len(leaf.Causes) > 0 {
			leaf = leaf.Causes[0]
		}
		return oneLine(fmt.Sprintf("at /%s: %s", strings.Join(leaf.InstanceLocation, "/"), leaf.ErrorKind.LocalizedString(message.NewPrinter(language.English))))
	}
	return oneLine(err.Error())
}

func describe(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// checkTypes names the first "type" that is no JSON Schema type, with
// where it is: the compiler's message for it is long and generic.
func checkTypes(n any, at string) error {
	switch v := n.(type) {
	case map[string]any:
		if isSchemaMap(at) {
			// properties, $defs...: names to schemas, where "type" is
			// a property's name, not a keyword.
			return eachSchema(v, at, checkTypes)
		}
		if t, ok := v["type"]; ok {
			bad := ""
			switch tt := t.(type) {
			case string:
				if !validTypes[tt] {
					bad = tt
				}
			case []any:
				for _, x := range tt {
					if s, ok := x.(string); !ok || !validTypes[s] {
						bad = fmt.Sprint(x)
					}
				}
			default:
				bad = describe(t)
			}
			if bad != "" {
				return fmt.Errorf("%q is not a JSON Schema type (at %s)", bad, orTop(at))
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			if k == "enum" || k == "const" || k == "default" || k == "examples" || k == "example" {
				continue // values, not schemas
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := checkTypes(v[k], at+"/"+k); err != nil {
				return err
			}
		}
	case []any:
		for i, x := range v {
			if err := checkTypes(x, fmt.Sprintf("%s/%d", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// For converts schema to dialect; the JSON Schema dialect, or an unknown
// one, leaves it as it is. The output is deterministic (keys sorted), so a
// tools array built from it stays byte-identical from request to request.
func For(dialect string, schema json.RawMessage) json.RawMessage {
	switch dialect {
	case Gemini:
		return ToGemini(schema)
	case OpenAIStrict:
		return ToStrict(schema)
	}
	return schema
}

func decode(schema json.RawMessage) (map[string]any, bool) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	if dec.Decode(&m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

func encode(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// schemaMaps are the keywords whose value maps names to schemas.
var schemaMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}

// isSchemaMap reports whether the value at path at is a name→schema map.
func isSchemaMap(at string) bool {
	i := strings.LastIndex(at, "/")
	return i >= 0 && schemaMaps[at[i+1:]]
}

// eachSchema applies f to every schema of a name→schema map, in name order.
func eachSchema(m map[string]any, at string, f func(any, string) error) error {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := f(m[k], at+"/"+k); err != nil {
			return err
		}
	}
	return nil
}
