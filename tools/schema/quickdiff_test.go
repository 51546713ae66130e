package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// adversarial are inputs a raw reader may get wrong: $ref loops, escapes
// in keys and values, invalid UTF-8, repeated keys, huge numbers, space.
var adversarial = []string{
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/A"}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#"}},"$ref":"#"}`,
	`{"type":"object","$ref":"#/properties"}`,
	`{"type":"object","$ref":"#/properties/a","properties":{"a":{"$ref":"#/$ref"}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/"}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#//"}},"":{"":{}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/A~0"}},"$defs":{"A~":{}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/A~01"}},"$defs":{"A~1":{}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/A%20B"}},"$defs":{"A B":{}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/A/0"}},"$defs":{"A":[{}]}}`,
	`{"type":"object","properties":{"a":{"$ref":5}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{}},"$defs":{"B":{}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/B"}},"$defs":{"A":{}},"$defs":{"B":{}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/A/properties/b"}},"$defs":{"A":{"properties":{"b":{}},"properties":{"c":{}}}}}`,
	`{"typ\u0065":"array"}`,
	`{"type":"object","properties":{"a":{"typ\u0065":"strin"}}}`,
	`{"type":"object","properties":{"a":{"\u0024ref":"#/nowhere"}}}`,
	`{"type":"object","properties":{"a":{"minLengt\u0068":-1}}}`,
	`{"type":"object","propertie\u0073":{"a":{"type":"strin"}}}`,
	`{"type":"object","properties":{"typ\u0065":{"type":"string"}}}`,
	`{"type":"object","properties":{"a":{"type":"string\u0000"}}}`,
	`{"type":"object","properties":{"a":{"type":"str\ud800ing"}}}`,
	`{"type":"object","properties":{"a":{"description":"\ud800"}}}`,
	`{"type":"object","properties":{"a":{"description":"\ud800\udc00 \u00e9 \/ \b\f\n\r\t"}}}`,
	"{\"type\":\"object\",\"properties\":{\"a\xff\":{\"type\":\"string\"}}}",
	"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"description\":\"\xff\"}}}",
	"{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/\xff\"}},\"$defs\":{\"\xff\":{}}}",
	"{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/\xef\xbf\xbd\"}},\"$defs\":{\"\xff\":{}}}",
	"{\"type\":\"object\",\"ty\xffpe\":5}",
	"{\"type\":\"object\",\"properties\":{\"a\":{\"enum\":[\"\xff\"]}}}",
	"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}\x00",
	"\xef\xbb\xbf{\"type\":\"object\"}",
	`{"type":"object","type":"object"}`,
	`{"type":"object","properties":{"a":{}},"properties":{"a":{"type":"strin"}}}`,
	`{"type":"object","properties":{"a":{"type":"string"},"a":{"type":5}}}`,
	`{"type":"object","required":["a"],"required":["a","a"]}`,
	`{"type":"object","properties":{"a":{"minimum":1e400}}}`,
	`{"type":"object","properties":{"a":{"minimum":-1e400}}}`,
	`{"type":"object","properties":{"a":{"minimum":1e-400}}}`,
	`{"type":"object","properties":{"a":{"multipleOf":1e-400}}}`,
	`{"type":"object","properties":{"a":{"multipleOf":1e308}}}`,
	`{"type":"object","properties":{"a":{"minLength":18446744073709551615}}}`,
	`{"type":"object","properties":{"a":{"minLength":18446744073709551616}}}`,
	`{"type":"object","properties":{"a":{"minLength":9223372036854775808}}}`,
	`{"type":"object","properties":{"a":{"minLength":1e2}}}`,
	`{"type":"object","properties":{"a":{"minLength":-0}}}`,
	`{"type":"object","properties":{"a":{"minLength":0}}}`,
	`{"type":"object","properties":{"a":{"minLength":01}}}`,
	`{"type":"object","properties":{"a":{"maximum":-}}}`,
	`{"type":"object","properties":{"a":{"maximum":1.}}}`,
	`{"type":"object","properties":{"a":{"maximum":.5}}}`,
	`{"type":"object","properties":{"a":{"maximum":+5}}}`,
	`{"type":"object","properties":{"a":{"default":1e999999}}}`,
	`{"type":"object","properties":{"a":{"enum":[1e999,"x"]}}}`,
	"{\t\"type\"\r:\n\"object\" }",
	"{\"type\":\"object\"}\n",
	"{\"type\":\"object\"}\v",
	`{"type":"object"}{}`,
	`{"type":"object","properties":{"a":{"type":["string","string"]}}}`,
	`{"type":"object","properties":{"a":{"type":[]}}}`,
	`{"type":"object","properties":{"a":{"type":["string",null]}}}`,
	`{"type":"object","properties":{"a":{"type":"Object"}}}`,
	`{"type":"object","properties":{"a":{"required":[]}}}`,
	`{"type":"object","properties":{"a":{"enum":[null,null]}}}`,
	`{"type":"object","properties":{"a":{"enum":["a","\u0061"]}}}`,
	`{"type":"object","properties":{"a":{"items":true,"contains":false,"not":{}}}}`,
	`{"type":"object","properties":{"a":{"items":null}}}`,
	`{"type":"object","properties":{"a":{"dependencies":{"b":[],"c":["d","d"]}}}}`,
	`{"type":"object","properties":{"a":{"dependencies":{"b":5}}}}`,
	`{"type":"object","dependentSchemas":{"a":{"type":"strin"}}}`,
	`{"type":"object","patternProperties":{"^a":{"$ref":"#/$defs/x"}}}`,
	`{"type":"object","definitions":{"x":{}},"properties":{"a":{"$ref":"#/definitions/x"}}}`,
	`{"type":"object","properties":{"a":{"x-y":[{"$ref":"#/nowhere"}]}}}`,
	`{"type":"object","properties":{"a":{"x-y":[{"type":"strin"}]}}}`,
	`{"type":"object","properties":{"a":{"const":{"$ref":"#/nowhere"},"default":{"$ref":"#/nowhere"},"enum":[{"$ref":"#/nowhere"}]}}}`,
	`{"type":"object","properties":{"a":{"example":{"type":"strin"}}}}`,
	`{"type":"object","properties":{"a":{"example":{"properties":{"b":{"$ref":"#/x"}}}}}}`,
	`{"type":"object","properties":{"enum":{"type":"strin"}}}`,
	`{"type":"object","properties":{"example":{"$ref":"#/nowhere"}}}`,
	`{"type":"object","properties":{"default":{"type":5}}}`,
	`{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema#"}`,
	`{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schem\u0061"}`,
	`{"type":"object","$schema":"http://json-schema.org/draft-07/schema"}`,
	`{"type":"object","$schema":null}`,
	`{"$schema":"https://json-schema.org/draft/2020-12/schema","$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`,
	`{"$schema":"http://json-schema.org/draft-04/schema#","$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`,
	`{"type":"object","properties":{"a":{"$id":"x"}}}`,
	`{"type":"object","properties":{"a":{"$anchor":"x"}}}`,
	`{"type":"object","$defs":{"a":{"$schema":"x"}}}`,
	`{"type":"object","properties":{"a":{"properties":{"$schema":{}}}}}`,
	`{"type":"object","properties":{"a":{"$comment":"x","title":"t","format":"f","pattern":"["}}}`,
	`{}`, `{ }`, `{"":{}}`, `{"type":"object","":5}`, `{"type":{}}`, `{"type":null}`,
	`{"type":"object","properties":[]}`, `{"type":"object","properties":{"a":[]}}`,
	`{"type":"object","allOf":[{"$ref":"#/allOf/1"},{}]}`,
	`{"type":"object","allOf":[{"$ref":"#/allOf"}]}`,
	`{"type":"object","x":{"y":{"z":{}}},"properties":{"a":{"$ref":"#/x/y/z"}}}`,
	`{"type":"object","x":{"y":{"z":{}},"y":5},"properties":{"a":{"$ref":"#/x/y/z"}}}`,
	`{"type":"object","x":{"y":{"z":{}}},"properties":{"a":{"$ref":"#/x/y\u002fz"}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/x/y/z"}},"x":{"y":{"z":{"w":{}}}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/x/y/z/w"}},"x":{"y":{"z":{"w":{}}}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/x/y/z/w"}},"x":{"y":{"z":{"w":{},"w":1}}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/x/y"}},"x":{"y":{},"\u0079":1}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/x/y/z"}},"x":{"y":{"z":{},"\u007a":1}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/x/y/z"}},"x":{"y":{"z":{}}},"x":{"y":{"z":5}}}`,
}

// realSchemas are the input schemas of every file of ../shared/catalogs,
// as the files have them and compacted.
func realSchemas(t testing.TB) [][]byte {
	dir := filepath.Join("..", "..", "..", "shared", "catalogs")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Skip("needs ../shared/catalogs next to the repository (the shared test data)")
	}
	var out [][]byte
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				if k == "inputSchema" || k == "input_schema" || k == "outputSchema" {
					b, _ := json.Marshal(y)
					ind, _ := json.MarshalIndent(y, "", "  ")
					out = append(out, b, ind)
				}
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		walk(v)
	}
	for _, tl := range sharedCatalog(t) {
		out = append(out, []byte(tl.InputSchema))
	}
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(s []byte) bool {
		dup := seen[string(s)]
		seen[string(s)] = true
		return dup
	})
}

// agreeWithOld fails t when quickValid and oldQuickValid differ on s.
func agreeWithOld(t *testing.T, s []byte) {
	t.Helper()
	if got, want := quickValid(s), oldQuickValid(s); got != want {
		t.Errorf("%q: quickValid %v, the three walks %v (check: %v)", s, got, want, check(s))
	}
}

// quickValid, one pass since 2f1bb75, answers as the three walks it
// replaced (oldQuickValid) on the table's schemas, adversarial ones, deep
// ones, every real schema of ../shared/catalogs (compact and indented) and
// mutations of them, with an escape in their "type" and "$ref" keys too.
// Where both take a schema, TestQuickValidAgreesWithCheck and
// FuzzQuickValid hold it to check.
func TestQuickValidMatchesOld(t *testing.T) {
	t.Parallel()
	for _, c := range quickCases {
		agreeWithOld(t, []byte(c.schema))
	}
	for _, s := range adversarial {
		agreeWithOld(t, []byte(s))
	}
	for _, c := range deepCases {
		for _, levels := range []int{1, 2, 20, 200} {
			agreeWithOld(t, nested(levels, c.open, c.leaf, c.close))
		}
	}
	schemas := realSchemas(t)
	replacements := []any{"x", "#/nowhere", "#", "#/$defs", "objekt", "object", json.Number("1.5"), json.Number("-1"), json.Number("0"), json.Number("1e400"), []any{}, []any{"a", "a"},
		[]any{"string"}, map[string]any{}, map[string]any{"type": "strin"}, map[string]any{"$ref": "#/$defs/x"}, map[string]any{"$ref": "#/properties"}, true, false, nil, "\xff", "a\u0000"}
	n := 0
	for i, s := range schemas {
		agreeWithOld(t, s)
		n++
		top, ok := decodeObject(s)
		if !ok {
			continue
		}
		mutations(t, top, i, 101, replacements, func(m []byte) {
			n++
			agreeWithOld(t, m)
			// The same with an escape in every key "type" and "$ref".
			e := strings.NewReplacer(`"type":`, `"typ\u0065":`, `"$ref":`, `"\u0024ref":`).Replace(string(m))
			agreeWithOld(t, []byte(e))
		})
	}
	t.Logf("%d real schemas, %d inputs", len(schemas), n)
}

// FuzzQuickValidMatchesOld: whatever the bytes, quickValid answers as the
// three walks did.
func FuzzQuickValidMatchesOld(f *testing.F) {
	for _, c := range quickCases {
		f.Add([]byte(c.schema))
	}
	for _, s := range adversarial {
		f.Add([]byte(s))
	}
	for _, c := range deepCases {
		f.Add(nested(3, c.open, c.leaf, c.close))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		if len(s) > 4096 {
			return // the old walks are quadratic in depth
		}
		agreeWithOld(t, s)
	})
}
