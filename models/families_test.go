package models

import "testing"

// The table knows no provider by name: the registry says which family each
// provider's API is made for, and a provider named after a family (a
// vendor's own API) needs no word.
func TestFamilies(t *testing.T) {
	t.Parallel()
	fam := (*Table)(nil).WithFamilies(map[string]string{"cloudclaude": "anthropic", "cloudgemini": "google", "aggregator": ""})
	withOverride, err := fam.With(map[string]Override{"corp-*": {Like: "gpt-5.4"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name            string
		tab             *Table
		provider, model string
		search          bool
		window          int
		dialect         Dialect
	}{
		{"own API, own model", nil, "anthropic", "claude-sonnet-4-5", true, 200_000, DialectJSONSchema},
		{"own API, other vendor's model", nil, "anthropic", "gpt-5.4", false, 0, ""},
		{"declared family strips another vendor's search", fam, "cloudclaude", "gpt-5.4", false, 0, ""},
		{"undeclared platform keeps it", nil, "cloudclaude", "gpt-5.4", true, 0, ""},
		{"declared family's defaults for an unknown id", fam, "cloudclaude", "my-alias", false, 200_000, DialectJSONSchema},
		{"gemini's dialect for an unknown id", fam, "cloudgemini", "my-alias", false, 128_000, DialectGemini},
		{"a family named by the provider", nil, "google", "my-alias", false, 128_000, DialectGemini},
		{"a server of many vendors", fam, "aggregator", "claude-sonnet-4-5", true, 200_000, DialectJSONSchema},
		{"With keeps the families", withOverride, "cloudclaude", "corp-x", false, 0, ""},
	}
	for _, c := range cases {
		got := c.tab.Lookup(c.provider, c.model)
		if got.NativeSearch != c.search {
			t.Errorf("%s: %s on %s: native search %v, want %v", c.name, c.model, c.provider, got.NativeSearch, c.search)
		}
		if c.window != 0 && got.ContextWindow != c.window {
			t.Errorf("%s: context window %d, want %d", c.name, got.ContextWindow, c.window)
		}
		if c.dialect != "" && got.SchemaDialect != c.dialect {
			t.Errorf("%s: dialect %q, want %q", c.name, got.SchemaDialect, c.dialect)
		}
	}
}
