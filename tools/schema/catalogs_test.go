package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// catalogTool is one tool of the recorded real catalogs.
type catalogTool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// sharedCatalog reads the recorded real catalogs (282 tools of 9 servers),
// skipping when the shared test data is not next to the repository.
func sharedCatalog(tb testing.TB) []catalogTool {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "catalogs", "ALL.json"))
	if err != nil {
		tb.Skipf("needs ../shared/catalogs/ALL.json next to the repository (the shared test data): %v", err)
	}
	var tools []catalogTool
	if err := json.Unmarshal(b, &tools); err != nil {
		tb.Fatal(err)
	}
	if len(tools) == 0 {
		tb.Fatal("no tools read")
	}
	return tools
}

// Every tool of the recorded real catalogs has a valid schema: a check
// that quarantined one of them would drop a working tool from the user's
// session.
func TestSharedCatalogsPass(t *testing.T) {
	for _, tl := range sharedCatalog(t) {
		if err := Check(tl.InputSchema); err != nil {
			t.Errorf("%s: %v", tl.Name, err)
		}
		if g := ToGemini(tl.InputSchema); !json.Valid(g) {
			t.Errorf("%s: Gemini conversion is not JSON", tl.Name)
		}
	}
}

// BenchmarkCheckCatalogs checks the 282 real catalog schemas, compacted
// as tools/mcp keeps them, as a cold start does (not Check: it remembers
// its answers): quick is what Check does (quickValid, check when it is not
// sure), walk is check alone (a decode into maps, then the walks), library
// check with the JSON Schema library instead of the meta walk.
func BenchmarkCheckCatalogs(b *testing.B) {
	var schemas [][]byte
	for _, t := range sharedCatalog(b) {
		var c bytes.Buffer
		if err := json.Compact(&c, t.InputSchema); err != nil {
			b.Fatal(err)
		}
		schemas = append(schemas, c.Bytes())
	}
	for _, name := range []string{"quick", "walk", "library"} {
		b.Run(name, func(b *testing.B) {
			metaWalk = name != "library"
			defer func() { metaWalk = true }()
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range schemas {
					if name == "quick" && quickValid(s) {
						continue
					}
					if err := check(s); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
