package gemini

import (
	"encoding/json"
	"testing"
)

func TestConvertSchema(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false,"$schema":"x"}`,
			`{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`},
		{"ref, const, nullable, int enum", `{"type":"object","properties":{"u":{"$ref":"#/$defs/u"},"c":{"const":"NYSE"},"t":{"type":["string","null"]},"n":{"type":"integer","enum":[1,2]}},"$defs":{"u":{"enum":["c","f"],"description":"units"}}}`,
			`{"properties":{"c":{"enum":["NYSE"],"format":"enum","type":"string"},"n":{"enum":["1","2"],"format":"enum","type":"string"},"t":{"nullable":true,"type":"string"},"u":{"description":"units","enum":["c","f"],"format":"enum","type":"string"}},"type":"object"}`},
		{"anyOf with null, array without items, required not a property", `{"type":"object","properties":{"a":{"anyOf":[{"type":"number"},{"type":"null"}]},"l":{"type":"array"}},"required":["a","zzz"]}`,
			`{"properties":{"a":{"nullable":true,"type":"number"},"l":{"items":{"type":"string"},"type":"array"}},"required":["a"],"type":"object"}`},
		{"allOf merged, formats", `{"allOf":[{"type":"object","properties":{"d":{"type":"string","format":"date-time"}}},{"properties":{"e":{"type":"string","format":"email"}},"required":["e"]}]}`,
			`{"properties":{"d":{"format":"date-time","type":"string"},"e":{"type":"string"}},"required":["e"],"type":"object"}`},
	}
	for _, c := range cases {
		got, ok := convertSchema(json.RawMessage(c.in))
		if !ok || string(got) != c.want {
			t.Errorf("%s:\n got %s (ok %v)\nwant %s", c.name, got, ok, c.want)
		}
	}
	if _, ok := convertSchema(json.RawMessage(`{"type":"object","properties":{}}`)); ok {
		t.Error("no properties: parameters must be left out")
	}
	if _, ok := convertSchema(json.RawMessage(`{"$ref":"#/$defs/self","$defs":{"self":{"type":"object","properties":{"next":{"$ref":"#/$defs/self"}}}}}`)); !ok {
		t.Error("a recursive schema must still convert (cut at depth)")
	}
}

func TestWireName(t *testing.T) {
	for _, n := range []string{"3d_render", "a/b", "-x", "very_long_" + string(make([]byte, 0)) + "name_that_goes_on_and_on_and_on_and_on_and_on_and_on_and_on_xx"} {
		w := wireName(n)
		if !validName.MatchString(w) {
			t.Errorf("%q -> %q is not a valid Gemini name", n, w)
		}
		if wireName(n) != w {
			t.Errorf("%q: not deterministic", n)
		}
	}
	if wireName("github__create_issue") != "github__create_issue" {
		t.Error("valid names pass unchanged")
	}
}
