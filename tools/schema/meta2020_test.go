package schema

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// libraryValid is the JSON Schema library's verdict against the
// meta-schema the schema declares, which metaValid2020 stands in for.
func libraryValid(t *testing.T, s []byte) bool {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	top, _ := decodeObject(s)
	meta, err := metaFor(metaURL(top["$schema"]))
	if err != nil {
		t.Fatal(err)
	}
	return meta.Validate(doc) == nil
}

// fastValid is the fast path's verdict, as check takes it.
func fastValid(t *testing.T, s []byte) bool {
	t.Helper()
	top, ok := decodeObject(s)
	if !ok {
		t.Fatalf("%s: not an object", s)
	}
	return fastDialects[metaURL(top["$schema"])] && metaValidTop(top)
}

// The fast path never calls valid what the library rejects (it may leave
// a valid schema to the library). want is the fast path's verdict, so a
// walk that gave up on everything would fail too.
func TestMeta2020AgreesWithLibrary(t *testing.T) {
	t.Parallel()
	cases := []struct {
		schema string
		fast   bool
	}{
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"(","format":"nonsense"}}}`, true},
		{`{"type":"object","patternProperties":{"(":{}},"additionalProperties":false}`, true},
		{`{"type":"object","properties":{"a":{"$ref":"%%%"}}}`, true},
		{`{"type":"object","properties":{"a":{"minLength":1,"maxItems":0,"uniqueItems":true}}}`, true},
		{`{"type":"object","properties":{"a":{"enum":["x",true,null],"examples":[],"const":{"x":[1]}}}}`, true},
		{`{"type":"object","properties":{"a":{"enum":[1,1.0]}}}`, false},
		{`{"type":"object","properties":{"a":{"enum":["a","a"]}}}`, false},
		{`{"type":"object","properties":{"a":{"dependencies":{"b":["c"],"d":{"type":"string"}}}}}`, true},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":true,"b":false}}`, true},
		{`{"type":"object","properties":{"a":{"x-foo":{"type":5},"multipleOf":0.5,"minimum":-3}}}`, true},
		{`{"type":"object","properties":{"a":{"type":["string","null"],"anyOf":[{},true]}}}`, true},
		{`{"type":"object","required":["a"],"dependentRequired":{"a":["b"]},"$defs":{"x":{}}}`, true},
		// Left to the library, valid or not.
		{`{"type":"object","properties":{"a":{"minLength":1.0}}}`, false},
		{`{"type":"object","properties":{"a":{"minLength":1.5}}}`, false},
		{`{"type":"object","properties":{"a":{"minLength":-1}}}`, false},
		{`{"type":"object","properties":{"a":{"minLength":1e2}}}`, false},
		{`{"type":"object","$anchor":"1bad"}`, false},
		{`{"type":"object","$anchor":"good"}`, false},
		{`{"type":"object","$id":"x#frag"}`, false},
		{`{"type":"object","required":["a","a"]}`, false},
		{`{"type":"object","required":"a"}`, false},
		{`{"type":"object","properties":{"a":{"type":["string","string"]}}}`, false},
		{`{"type":"object","properties":{"a":{"type":[]}}}`, false},
		{`{"type":"object","properties":{"a":{"multipleOf":0}}}`, false},
		{`{"type":"object","properties":{"a":{"multipleOf":1e-400}}}`, false},
		{`{"type":"object","properties":{"a":{"allOf":[]}}}`, false},
		{`{"type":"object","properties":{"a":{"items":[{}]}}}`, false},
		{`{"type":"object","properties":{"a":{"contentEncoding":5}}}`, false},
		{`{"type":"object","properties":{"a":{"deprecated":"yes"}}}`, false},
		{`{"type":"object","properties":{"a":{"$comment":5}}}`, false},
		{`{"type":"object","properties":{"a":5}}`, false},
		{`{"type":"object","properties":{"a":{"$schema":"http://json-schema.org/draft-07/schema#"}}}`, false},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"enum":["x"],"items":{},"readOnly":true}}}`, true},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"enum":[]}}}`, false},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"items":[{}],"additionalItems":false}}}`, false},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"deprecated":1}}}`, false},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`, false},
	}
	for _, c := range cases {
		s := []byte(c.schema)
		fast, lib := fastValid(t, s), libraryValid(t, s)
		if fast && !lib {
			t.Errorf("%s: the fast path calls valid what the library rejects", s)
		}
		if fast != c.fast {
			t.Errorf("%s: fast path %v, want %v", s, fast, c.fast)
		}
	}
}

// Every schema of the real catalogs takes the fast path, and no mutation
// of one (a keyword's value replaced by a value of another kind) makes the
// fast path accept what the library rejects.
func TestMeta2020OnCatalogs(t *testing.T) {
	t.Parallel()
	tools := sharedCatalog(t)
	replacements := []any{"x", json.Number("1.5"), json.Number("-1"), json.Number("0"), json.Number("2"),
		[]any{}, []any{"a", "a"}, []any{"string"}, map[string]any{}, map[string]any{"a": json.Number("1")}, true, nil}
	mutated, accepted := 0, 0
	for i, tl := range tools {
		top, ok := decodeObject(tl.InputSchema)
		if !ok {
			t.Fatalf("%s: not an object", tl.Name)
		}
		if !fastDialects[metaURL(top["$schema"])] || !metaValidTop(top) {
			t.Errorf("%s: a real catalog's schema left to the library", tl.Name)
		}
		// Every keyword of every schema object, one in thirteen, each
		// given every replacement.
		mutations(t, top, i, 13, replacements, func(s []byte) {
			mutated++
			if !fastValid(t, s) {
				return
			}
			accepted++
			if !libraryValid(t, s) {
				t.Errorf("%s: the fast path calls valid what the library rejects: %s", tl.Name, s)
			}
		})
	}
	t.Logf("%d mutations, %d taken by the fast path", mutated, accepted)
	if mutated < 500 || accepted == 0 {
		t.Errorf("%d mutations, %d accepted: the test no longer covers the fast path", mutated, accepted)
	}
}

// mutations gives yield top as JSON with one keyword's value replaced, for
// each replacement and one keyword in every `every` of those under top
// (counted from i, so that each schema starts elsewhere); top is restored
// after each.
func mutations(t testing.TB, top map[string]any, i, every int, replacements []any, yield func([]byte)) {
	t.Helper()
	var spots []func(any) func()
	collect(top, &spots)
	for j, set := range spots {
		if (i+j)%every != 0 {
			continue
		}
		for _, r := range replacements {
			undo := set(r)
			s, err := json.Marshal(top)
			undo()
			if err != nil {
				t.Fatal(err)
			}
			yield(s)
		}
	}
}

// collect lists a setter for every key of every object under v.
func collect(v any, spots *[]func(any) func()) {
	switch x := v.(type) {
	case map[string]any:
		for k, old := range x {
			*spots = append(*spots, func(r any) func() {
				x[k] = r
				return func() { x[k] = old }
			})
			collect(old, spots)
		}
	case []any:
		for _, e := range x {
			collect(e, spots)
		}
	}
}
