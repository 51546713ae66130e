package schema

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// quickCases are schemas quickValid must take (want true) or leave to
// check (false): every rule of check's, with the spellings a raw walk
// could get wrong (escapes, repeated keys, invalid UTF-8, whitespace).
var quickCases = []struct {
	schema string
	want   bool
}{
	{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, true},
	{` { "type" : "object" , "properties" : { "a" : { "type" : [ "string" , "null" ] } } } `, false}, // Check trims; quickValid is given trimmed input
	{`{ "type" : "object" , "properties" : { "a" : { "type" : [ "string" , "null" ] } } }`, true},
	{`{}`, true},
	{`{"properties":{"type":{"type":"string","enum":["a"]},"$ref":{"type":"string"}},"$defs":{"type":{"type":"object","properties":{"type":{"const":"x"}}}}}`, true},
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}`, true},
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/A/properties/b"}},"$defs":{"A":{"properties":{"b":{}}}}}`, true},
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/A/properties/b"}},"$defs":{"A":{"properties":{"b":true}}}}`, false},
	{`{"type":"object","properties":{"a":{"$ref":"#"}}}`, true},
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/a~1b"}},"$defs":{"a/b":{}}}`, true},
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, false},
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/A/x"}},"$defs":{"A":[{}]}}`, false},
	{`{"type":"object","properties":{"a":{"$ref":"other.json#/x"}}}`, true},                     // remote: left alone, as check does
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{},"A":5}}`, false}, // the decoder keeps the last
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/\u0041"}},"$defs":{"A":{}}}`, false},  // an escape: check decodes it
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"\u0041":{}}}`, false},  // an escaped key
	// Answers and objects resolves remembers, met again.
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/$defs/A"},"c":{"$ref":"#/$defs/B"}},"$defs":{"A":{}}}`, false},
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/$defs/A/properties/x"},"c":{"$ref":"#/$defs/A"}},"$defs":{"A":{"properties":{"x":{}}}}}`, true},
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/$defs/B"}},"$defs":{"A":{},"B\u0041":{}}}`, false},
	{`{"type":"object","properties":{"a":{"type":"strin"}}}`, false},
	{`{"type":"objekt"}`, false},
	{`{"type":"array","items":{}}`, false},
	{`{"type":"object","type":"array"}`, false},
	{`{"type":"array","type":"object"}`, false},
	{`{"type":["object"]}`, false},
	{`{"type":"\u006fbject"}`, false},
	{`{"\u0074ype":"array"}`, false},
	{`[1,2]`, false},
	{`{"type":"object"} x`, false},
	{`{"type":"object",}`, false},
	{`{"type":"object","required":"a"}`, false},
	{`{"type":"object","required":[]}`, true},
	{`{"type":"object","required":["a","a"]}`, false},
	{`{"type":"object","required":["a","\u0061"]}`, false},
	{`{"type":"object","properties":{"a":{"enum":[1,"x",null]}}}`, false}, // numbers in enum: the library
	{`{"type":"object","properties":{"a":{"enum":["x",true,null,"true"]}}}`, true},
	{`{"type":"object","properties":{"a":{"enum":["x",true,null,true]}}}`, false},
	{`{"type":"object","properties":{"a":{"enum":[]}}}`, false},
	{`{"type":"object","properties":{"a":{"enum":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","a"]}}}`, false},
	{`{"type":"object","properties":{"a":{"enum":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","s"]}}}`, true},
	{"{\"type\":\"object\",\"properties\":{\"a\":{\"enum\":[\"\xff\",\"\xfe\"]}}}", false},
	{`{"type":"object","properties":{"a":{"minLength":1,"maxItems":0,"uniqueItems":true,"multipleOf":0.5,"minimum":-3}}}`, true},
	{`{"type":"object","properties":{"a":{"minLength":1.0}}}`, false},
	{`{"type":"object","properties":{"a":{"minLength":-1}}}`, false},
	{`{"type":"object","properties":{"a":{"minLength":"1"}}}`, false},
	{`{"type":"object","properties":{"a":{"multipleOf":0}}}`, false},
	{`{"type":"object","properties":{"a":{"maximum":"3"}}}`, false},
	{`{"type":"object","properties":{"a":{"deprecated":"yes"}}}`, false},
	{`{"type":"object","properties":{"a":{"allOf":[]}}}`, false},
	{`{"type":"object","properties":{"a":{"anyOf":[{},true,{"type":"integer"}]}}}`, true},
	{`{"type":"object","properties":{"a":{"items":[{}]}}}`, false},
	{`{"type":"object","properties":{"a":5}}`, false},
	{`{"type":"object","properties":{"a":{"$comment":5}}}`, false},
	{`{"type":"object","properties":{"a":{"x-foo":{"type":5}}}}`, false},       // checkTypes looks everywhere
	{`{"type":"object","properties":{"a":{"x-foo":{"type":"string"}}}}`, true}, // unknown keyword, valid type
	{`{"type":"object","properties":{"a":{"default":{"type":5},"examples":[{"type":5}],"const":{"type":5}}}}`, true},
	{`{"type":"object","properties":{"a":{"example":{"type":5}}}}`, true},              // checkTypes skips example
	{`{"type":"object","properties":{"a":{"example":{"$ref":"#/nowhere"}}}}`, false},   // checkRefs does not
	{`{"type":"object","properties":{"a":{"examples":[{"$ref":"#/nowhere"}]}}}`, true}, // neither looks in examples
	{`{"type":"object","properties":{"a":{"dependencies":{"b":["c"],"d":{"type":"string"}}}}}`, true},
	{`{"type":"object","dependentRequired":{"a":["b","b"]}}`, false},
	{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`, true},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, true},
	{`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`, false},
	{`{"$schema":5,"type":"object"}`, false},
	{`{"type":"object","properties":{"a":{"$schema":"http://json-schema.org/draft-07/schema#"}}}`, false},
	{`{"type":"object","$id":"x"}`, false},
}

// quickValid never calls valid what check rejects, and takes the schemas
// it is meant to (so that a walk that gave up on everything fails too).
func TestQuickValidAgreesWithCheck(t *testing.T) {
	t.Parallel()
	for _, c := range quickCases {
		s := []byte(c.schema)
		got := quickValid(s)
		if got && check(s) != nil {
			t.Errorf("%s: quickValid takes what check rejects: %v", s, check(s))
		}
		if got != c.want {
			t.Errorf("%s: quickValid %v, want %v", s, got, c.want)
		}
	}
}

// Every schema of the real catalogs takes the quick path; no mutation of
// one (TestMeta2020OnCatalogs') makes it take what check rejects.
func TestQuickValidOnCatalogs(t *testing.T) {
	t.Parallel()
	tools := sharedCatalog(t)
	replacements := []any{"x", "#/nowhere", "objekt", json.Number("1.5"), json.Number("-1"), json.Number("0"), []any{}, []any{"a", "a"},
		[]any{"string"}, map[string]any{}, map[string]any{"type": "strin"}, map[string]any{"$ref": "#/$defs/x"}, true, nil}
	mutated, taken := 0, 0
	for i, tl := range tools {
		if !quickValid(compacted(t, tl.InputSchema)) {
			t.Errorf("%s: a real catalog's schema left to check", tl.Name)
		}
		top, _ := decodeObject(tl.InputSchema)
		mutations(t, top, i, 7, replacements, func(s []byte) {
			mutated++
			if !quickValid(s) {
				return
			}
			taken++
			if err := check(s); err != nil {
				t.Errorf("%s: quickValid takes what check rejects (%v): %s", tl.Name, err, s)
			}
		})
	}
	t.Logf("%d mutations, %d taken by the quick path", mutated, taken)
	if mutated < 1000 || taken == 0 {
		t.Errorf("%d mutations, %d taken: the test no longer covers the quick path", mutated, taken)
	}
}

func compacted(t testing.TB, s []byte) []byte {
	var b []byte
	b, err := json.Marshal(json.RawMessage(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzQuickValid: whatever the bytes, quickValid never takes what check
// rejects. The seeds are the table's; go test -fuzz FuzzQuickValid
// looks further.
func FuzzQuickValid(f *testing.F) {
	for _, c := range quickCases {
		f.Add([]byte(c.schema))
	}
	for _, c := range deepCases {
		f.Add(nested(3, c.open, c.leaf, c.close))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		if quickValid(s) {
			if err := check(s); err != nil {
				t.Errorf("%q: quickValid takes what check rejects: %v", s, err)
			}
		}
	})
}

// nested is a schema whose properties nest levels deep, each level
// opening with open and closing with close, around leaf.
func nested(levels int, open, leaf, close string) []byte {
	return []byte(`{"type":"object","properties":{"a":` + strings.Repeat(open, levels) + leaf +
		strings.Repeat(close, levels) + `},"$defs":{"D":{"type":"string"}}}`)
}

// deepCases nest schemas, schema maps, schema arrays, unknown keywords
// and plain values, up to encoding/json's depth limit and past it.
var deepCases = []struct {
	name        string
	open, close string
	// levels is how many opens; depth the nesting of arrays and objects
	// each adds.
	depth int
	leaf  string
	want  bool
}{
	{"properties", `{"properties":{"a":`, `}}`, 2, `{"type":"string"}`, true},
	{"properties, a bad type", `{"properties":{"a":`, `}}`, 2, `{"type":"strin"}`, false},
	{"properties, a $ref", `{"properties":{"a":`, `}}`, 2, `{"$ref":"#/$defs/D"}`, true},
	{"properties, a $ref to nothing", `{"properties":{"a":`, `}}`, 2, `{"$ref":"#/$defs/E"}`, false},
	{"items", `{"items":`, `}`, 1, `{"type":"integer"}`, true},
	{"allOf", `{"allOf":[`, `]}`, 2, `{"minLength":1}`, true},
	{"allOf, a bad minLength", `{"allOf":[`, `]}`, 2, `{"minLength":-1}`, false},
	{"unknown keywords", `{"x-a":`, `}`, 1, `{"type":"null"}`, true},
	{"unknown keywords, a bad type", `{"x-a":`, `}`, 1, `{"type":5}`, false},
	{"arrays in a default", `{"default":[`, `]}`, 2, `{"type":5}`, true},
	{"arrays in an example", `{"example":[`, `]}`, 2, `{"$ref":"#/nowhere"}`, false},
}

// Deep schemas get check's verdict, up to the depth limit and past it
// (where encoding/json refuses them), each byte read a bounded number
// of times (BenchmarkQuickValidDeep shows the time per byte).
func TestQuickValidDeep(t *testing.T) {
	t.Parallel()
	for _, c := range deepCases {
		// 2 for the top level and its properties, 1 for the leaf.
		under := (10000 - 3) / c.depth
		for _, levels := range []int{1, 20, under, under + 1} {
			s := nested(levels, c.open, c.leaf, c.close)
			want := c.want && 3+levels*c.depth <= 10000
			got := quickValid(s)
			if got != want {
				t.Errorf("%s, %d levels: quickValid %v, want %v", c.name, levels, got, want)
			}
			if json.Valid(s) != (3+levels*c.depth <= 10000) {
				t.Fatalf("%s, %d levels: json.Valid %v: the depth limit is not where the test has it", c.name, levels, json.Valid(s))
			}
			// check decodes the schema and may ask the library, which
			// takes seconds at thousands of levels: its verdict is
			// asked of the shallow ones.
			if levels > 20 {
				continue
			}
			if err := check(s); (err == nil) != c.want {
				t.Errorf("%s, %d levels: check says %v, want valid %v", c.name, levels, err, c.want)
			}
		}
	}
}

// BenchmarkQuickValidDeep reads schemas nested 10 to 4,000 levels deep:
// the time per byte stays flat (the walks over rawjson.EachMember read each
// level again per depth, so it grew with the depth).
func BenchmarkQuickValidDeep(b *testing.B) {
	for _, levels := range []int{10, 100, 1000, 4000} {
		s := nested(levels, `{"type":"object","properties":{"a":`, `{"type":"string"}`, `}}`)
		b.Run(strconv.Itoa(levels), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				if !quickValid(s) {
					b.Fatal("not taken")
				}
			}
		})
	}
}
