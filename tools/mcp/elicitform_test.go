package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A choice field's default is shown as its label, as the choices are: the
// form cycles through the labels from the one shown, and what it sends
// back is the option the label names. server-everything's
// trigger-elicitation-request has each kind of choice (fields copied from
// its requestedSchema).
func TestFormDefaultShowsItsLabel(t *testing.T) {
	var schema any
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{
		"untitledSingleSelectEnum":{"type":"string","enum":["Monica","Rachel","Joey"],"default":"Rachel"},
		"untitledMultipleSelectEnum":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","enum":["Guitar","Piano","Violin"]},"default":["Guitar"]},
		"titledSingleSelectEnum":{"type":"string","oneOf":[{"const":"hero-1","title":"Superman"},{"const":"hero-2","title":"Green Lantern"},{"const":"hero-3","title":"Wonder Woman"}],"default":"hero-2"},
		"titledMultipleSelectEnum":{"type":"array","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"fish-1","title":"Tuna"},{"const":"fish-2","title":"Salmon"},{"const":"fish-3","title":"Trout"}]},"default":["fish-1","fish-3"]},
		"legacyTitledEnum":{"type":"string","enum":["pet-1","pet-2","pet-3"],"enumNames":["Cats","Dogs","Birds"],"default":"pet-2"},
		"integer":{"type":"integer","default":42},
		"firstLine":{"type":"string","default":"It was a dark and stormy night."}}}`), &schema); err != nil {
		t.Fatal(err)
	}
	fields, err := ParseForm(schema)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		text  string
		value any
	}{
		"untitledSingleSelectEnum":   {"Rachel", "Rachel"},
		"untitledMultipleSelectEnum": {"Guitar", []any{"Guitar"}},
		"titledSingleSelectEnum":     {"Green Lantern", "hero-2"},
		"titledMultipleSelectEnum":   {"Tuna, Trout", []any{"fish-1", "fish-3"}},
		"legacyTitledEnum":           {"Dogs", "pet-2"},
		"integer":                    {"42", int64(42)},
		"firstLine":                  {"It was a dark and stormy night.", "It was a dark and stormy night."},
	}
	if len(fields) != len(want) {
		t.Fatalf("%d fields, want %d", len(fields), len(want))
	}
	for _, f := range fields {
		w := want[f.Name]
		if got := f.DefaultText(); got != w.text {
			t.Errorf("%s: default shown as %q, want %q (its label)", f.Name, got, w.text)
		}
		v, ok, err := f.Parse(f.DefaultText())
		if err != nil || !ok || !reflect.DeepEqual(v, w.value) {
			t.Errorf("%s: the default shown reads back as %#v, %v, %v; want %#v", f.Name, v, ok, err, w.value)
		}
	}
}
