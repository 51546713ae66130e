package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		schema, problem string
	}{
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, ""},
		{``, ""},
		{`{"properties":{"a":{"type":["string","null"]}}}`, ""},
		{`{"type":"objekt"}`, `the top-level type is "objekt", not "object"`},
		{`{"type":"object","properties":{"a":{"type":"strin"}}}`, `"strin" is not a JSON Schema type (at /properties/a)`},
		{`[1,2]`, "the schema is not a JSON object"},
		{`{"type":"array","items":{}}`, `the top-level type is "array"`},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, `$ref "#/$defs/missing" resolves to nothing (at /properties/a)`},
		{`{"type":"object","required":"a"}`, "invalid schema"},
		{`{"type":"object","properties":{"a":{"enum":[1,"x",null]}}}`, ""},
		// Properties named like keywords are names, not keywords.
		{`{"type":"object","properties":{"type":{"type":"string","enum":["a"]},"$ref":{"type":"string"}},"$defs":{"type":{"type":"object","properties":{"type":{"const":"x"}}}}}`, ""},
		{`{"type":"object","properties":{"type":{"type":"strng"}}}`, `"strng" is not a JSON Schema type (at /properties/type)`},
	}
	for _, c := range cases {
		err := Check(json.RawMessage(c.schema))
		switch {
		case c.problem == "" && err != nil:
			t.Errorf("%s: unexpected %v", c.schema, err)
		case c.problem != "" && (err == nil || !strings.Contains(err.Error(), c.problem)):
			t.Errorf("%s: got %v, want %q", c.schema, err, c.problem)
		}
	}
}

// What ToGemini sends as JSON text comes back decoded; everything else
// stays as the model sent it, byte for byte.
func TestArgsFromGemini(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{"opts":{"type":"object"},"name":{"type":"string"},"any":{},` +
		`"rows":{"type":"array","items":{"type":"object"}},"ref":{"$ref":"#/$defs/O"},"n":{"anyOf":[{"type":"string"},{"type":"object"}]}},"$defs":{"O":{"type":"object"}}}`)
	cases := []struct{ in, want string }{
		{`{"opts":"{\"a\":1}","name":"{\"b\":2}"}`, `{"name":"{\"b\":2}","opts":{"a":1}}`},
		{`{"any":"[1,2]","rows":["{\"k\":\"v\"}"],"ref":"{}"}`, `{"any":[1,2],"ref":{},"rows":[{"k":"v"}]}`},
		{`{"any":"plain text","n":"{\"x\":1}"}`, `{"any":"plain text","n":"{\"x\":1}"}`},
		{`{"opts":{"a":1},"name":"x"}`, `{"opts":{"a":1},"name":"x"}`},
		{`{"opts":"not json"}`, `{"opts":"not json"}`},
	}
	for _, c := range cases {
		if got := string(ArgsFromGemini(schema, json.RawMessage(c.in))); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestToGemini(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false,"required":["a"]}`,
			`{"properties":{"a":{"type":"string"}},"required":["a"],"type":"object"}`},
		{`{"type":"object","properties":{"mode":{"const":"fast"}}}`,
			`{"properties":{"mode":{"enum":["fast"],"type":"string"}},"type":"object"}`},
		{`{"type":"object","properties":{"n":{"type":"integer","enum":[1,2,3]}}}`,
			`{"properties":{"n":{"type":"integer"}},"type":"object"}`},
		{`{"type":"object","properties":{"s":{"type":["string","null"],"format":"uri"}}}`,
			`{"properties":{"s":{"nullable":true,"type":"string"}},"type":"object"}`},
		{`{"type":"object","properties":{"p":{"$ref":"#/$defs/P"}},"$defs":{"P":{"type":"object","properties":{"x":{"type":"number","exclusiveMinimum":0}},"additionalProperties":false}}}`,
			`{"properties":{"p":{"properties":{"x":{"minimum":0,"type":"number"}},"type":"object"}},"type":"object"}`},
		{`{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"type":"null"}]}}}`,
			`{"properties":{"v":{"nullable":true,"type":"string"}},"type":"object"}`},
		{`{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"number"}]}},"required":["v","gone"]}`,
			`{"properties":{"v":{"anyOf":[{"type":"string"},{"type":"number"}]}},"required":["v"],"type":"object"}`},
		{`{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"boolean","default":true}}}]}`,
			`{"properties":{"a":{"type":"string"},"b":{"type":"boolean"}},"required":["a"],"type":"object"}`},
		{`{"type":"object","properties":{"t":{"type":"array"}},"patternProperties":{"^x":{}},"examples":[{}]}`,
			`{"properties":{"t":{"items":{"type":"string"},"type":"array"}},"type":"object"}`},
		{`{"type":"object","properties":{"node":{"$ref":"#"}}}`, ""}, // recursive: cut, not looped
		// What Gemini answers with a 400 (geminitest.SchemaRules): a
		// free-form object or an untyped value travels as JSON text,
		// properties/required/format only where their type allows.
		{`{"type":"object","properties":{"opts":{"type":"object","description":"Options","additionalProperties":true},"v":{}}}`,
			`{"properties":{"opts":{"description":"Options (a JSON object, as text)","type":"string"},"v":{"description":"A JSON value, as text.","type":"string"}},"type":"object"}`},
		{`{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object"}},"any":{"type":"array","items":{}}}}`,
			`{"properties":{"any":{"items":{"description":"A JSON value, as text.","type":"string"},"type":"array"},"rows":{"items":{"description":"A JSON object, as text.","type":"string"},"type":"array"}},"type":"object"}`},
		{`{"type":"object","properties":{"data":{"type":"string","properties":{"a":{"type":"string"}},"required":["a"]},"rgb":{"type":"array","format":"date-time","items":{"type":"integer"}}}}`,
			`{"properties":{"data":{"type":"string"},"rgb":{"items":{"type":"integer"},"type":"array"}},"type":"object"}`},
		{`{"type":"object","properties":{"f":{"anyOf":[{"type":"object"},{"type":"string"},{"type":"integer"}]}}}`,
			`{"properties":{"f":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"type":"object"}`},
	}
	for _, c := range cases {
		got := string(ToGemini(json.RawMessage(c.in)))
		if c.want != "" && got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.in, got, c.want)
		}
		for _, bad := range []string{"$schema", "additionalProperties", "const", "$ref", "$defs", "oneOf", "allOf", "default", "patternProperties", "exclusiveMinimum"} {
			if strings.Contains(got, `"`+bad+`"`) {
				t.Errorf("%s: %q left in %s", c.in, bad, got)
			}
		}
	}
	// Deterministic bytes: the tools array must not change between requests.
	in := json.RawMessage(`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"},"c":{"type":"string"}}}`)
	first := string(ToGemini(in))
	for range 20 {
		if string(ToGemini(in)) != first {
			t.Fatal("conversion is not deterministic")
		}
	}
}

func TestToStrict(t *testing.T) {
	t.Parallel()
	got := string(ToStrict(json.RawMessage(`{"$schema":"x","type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},"o":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}},"required":["a"]}`)))
	want := `{"additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":["integer","null"]},"o":{"additionalProperties":false,"properties":{"x":{"type":"string"}},"required":["x"],"type":["object","null"]}},"required":["a","b","o"],"type":"object"}`
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if got := string(For(JSONSchema, json.RawMessage(`{"a":1}`))); got != `{"a":1}` {
		t.Errorf("jsonschema dialect changed the schema: %s", got)
	}
}
