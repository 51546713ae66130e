package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Every tool of the recorded real catalogs (282 tools of 9 servers) has a
// valid schema: a check that quarantined one of them would drop a working
// tool from the user's session.
func TestSharedCatalogsPass(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "catalogs", "ALL.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("needs ../shared/catalogs/ALL.json next to the repository (the shared test data): %v", err)
	}
	var tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) == 0 {
		t.Fatal("no tools read")
	}
	for _, tl := range tools {
		if err := Check(tl.InputSchema); err != nil {
			t.Errorf("%s: %v", tl.Name, err)
		}
		if g := ToGemini(tl.InputSchema); !json.Valid(g) {
			t.Errorf("%s: Gemini conversion is not JSON", tl.Name)
		}
	}
}

// BenchmarkCheckCatalogs checks the 282 real catalog schemas, as a cold
// start does (check, not Check: Check remembers its answers).
func BenchmarkCheckCatalogs(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "catalogs", "ALL.json"))
	if err != nil {
		b.Skipf("needs ../shared/catalogs/ALL.json next to the repository (the shared test data): %v", err)
	}
	var tools []struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range tools {
			if err := check(t.InputSchema); err != nil {
				b.Fatal(err)
			}
		}
	}
}
