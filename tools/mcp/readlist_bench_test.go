package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadCatalogPage reads the 282 tools of the shared catalogs as a
// cold start reads a server's tools/list answer: through the capReader,
// which diverts the tools array into a page, then each tool parsed from
// it (parseToolView). Schemas are checked in tools/schema's own benchmark.
//
//	go test ./tools/mcp -run '^$' -bench ReadCatalogPage -benchmem
func BenchmarkReadCatalogPage(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join(sharedDir(b), "catalogs", "ALL.json"))
	if err != nil {
		b.Skipf("needs ../shared/catalogs/ALL.json (the shared data beside the repository root): %v", err)
	}
	var tools []json.RawMessage
	if err := json.Unmarshal(raw, &tools); err != nil {
		b.Fatal(err)
	}
	// As a server sends it: compact, the tools as the catalog has them.
	list, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "result": map[string]any{"tools": tools}})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(list)))
	b.ReportAllocs()
	for b.Loop() {
		var p listPages
		p.expect(true)
		cr := newCapReader(bytes.NewReader(list), DefaultMaxToolResultBytes, false)
		cr.pages = &p
		if _, err := io.Copy(io.Discard, cr); err != nil {
			b.Fatal(err)
		}
		pg := p.claim(1)
		if pg == nil || len(pg.elems) != len(tools) {
			b.Fatal("the tools array was not diverted")
		}
		for i, e := range pg.elems {
			if _, err := parseToolView(e, pg.tight[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
