package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-dev/agent/tools"
)

// streamed is es with each list given as WriteTools (written in pieces
// of piece bytes: 7 as an encoder writes its length prefixes, 4096 as
// tools/mcp's writeCatalog gathers them) instead of Tools, its size off by
// skew.
func streamed(es []tools.CatalogEntry, skew, piece int) []tools.CatalogEntry {
	out := slices.Clone(es)
	for i := range out {
		b := out[i].Tools
		out[i].Tools = nil
		out[i].ToolsSize = len(b) + skew
		out[i].WriteTools = func(w io.Writer) error {
			for p := b; len(p) > 0; {
				n := min(piece, len(p))
				if _, err := w.Write(p[:n]); err != nil {
					return err
				}
				p = p[n:]
			}
			return nil
		}
	}
	return out
}

// storedRows is what the table holds for each server: its tools column
// (a list or a file's reference) and the list's hash.
func storedRows(t *testing.T, d *DB) [][3]string {
	t.Helper()
	rows, err := d.sql.QueryContext(t.Context(), `SELECT server, tools, tools_hash FROM mcp_catalog ORDER BY server`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][3]string
	for rows.Next() {
		var r [3]string
		if err := rows.Scan(&r[0], &r[1], &r[2]); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// fileBytes is every file of the catalog directory, by name.
func fileBytes(t *testing.T, d *DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range catalogFiles(t, d) {
		b, err := os.ReadFile(filepath.Join(d.catalogDir(), n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = string(b)
	}
	return out
}

// A list streamed (WriteTools) is stored exactly as the same list given as
// bytes: the same rows, the same files byte for byte, the same list read
// back; whether it goes to a pack, a file of its own or its row.
func TestSaveCatalogsStreamedAsBuilt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		es    []tools.CatalogEntry
		files int
	}{
		{"first run's pack", firstRunCatalogs(), 1},
		{"a file of its own", []tools.CatalogEntry{
			{Server: "a", ConfigHash: "h", Tools: bigList(1, catalogFileMin+3)},
			{Server: "b", ConfigHash: "h", Tools: []byte("tiny")},
		}, 1},
		{"one large list alone", []tools.CatalogEntry{{Server: "a", ConfigHash: "h", Tools: bigList(2, 100_000)}}, 1},
		{"rows only", []tools.CatalogEntry{
			{Server: "a", ConfigHash: "h", Tools: bigList(3, 30_000)},
			{Server: "b", ConfigHash: "h", Tools: bigList(4, 200)},
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			built, _ := openTest(t)
			stream, _ := openTest(t)
			if err := built.SaveCatalogs(t.Context(), tc.es); err != nil {
				t.Fatal(err)
			}
			if err := stream.SaveCatalogs(t.Context(), streamed(tc.es, 0, 7)); err != nil {
				t.Fatal(err)
			}
			if b, s := storedRows(t, built), storedRows(t, stream); !slices.Equal(b, s) {
				t.Fatalf("rows streamed differ from rows built:\n%.300q\n%.300q", s, b)
			}
			bf, sf := fileBytes(t, built), fileBytes(t, stream)
			if len(sf) != tc.files || len(bf) != len(sf) {
				t.Fatalf("%d files streamed, %d built, want %d", len(sf), len(bf), tc.files)
			}
			for n, b := range bf {
				if sf[n] != b {
					t.Fatalf("file %s streamed differs from the one built", n)
				}
			}
			for _, e := range tc.es {
				got, err := stream.LoadCatalog(t.Context(), e.Server, e.ConfigHash)
				if err != nil {
					t.Fatal(err)
				}
				if string(got.Tools) != string(e.Tools) {
					t.Fatalf("%s: read back %d bytes, not the %d written", e.Server, len(got.Tools), len(e.Tools))
				}
			}
		})
	}
}

// A streamed list that writes other than its ToolsSize is refused, with
// nothing stored: a row would name a slice of its file that is not it.
func TestSaveCatalogsStreamedWrongSize(t *testing.T) {
	for _, skew := range []int{-1, 1} {
		d, _ := openTest(t)
		es := streamed(firstRunCatalogs(), 0, 7)
		es[3].ToolsSize += skew
		err := d.SaveCatalogs(t.Context(), es)
		var se *CatalogSizeError
		if !errors.As(err, &se) || se.Size != se.Wrote+skew {
			t.Fatalf("skew %d: saved with %v, want a CatalogSizeError", skew, err)
		}
		if rows, files := storedRows(t, d), catalogFiles(t, d); len(rows) != 0 || len(files) != 0 {
			t.Fatalf("skew %d: stored %d rows and files %v, want nothing", skew, len(rows), files)
		}
	}
}

// Streamed lists whose pack cannot be written are kept in their rows, as
// lists given as bytes are: nothing listed is lost.
func TestSaveCatalogsStreamedPackUnwritable(t *testing.T) {
	d, _ := openTest(t)
	// A file where the directory goes: the pack cannot be created.
	if err := os.WriteFile(d.catalogDir(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	es := firstRunCatalogs()
	if err := d.SaveCatalogs(t.Context(), streamed(es, 0, 7)); err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		got, err := d.LoadCatalog(t.Context(), e.Server, e.ConfigHash)
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Tools) != string(e.Tools) {
			t.Fatalf("%s: read back %d bytes, not the %d written", e.Server, len(got.Tools), len(e.Tools))
		}
	}
}

// firstRunCatalogs are entries of the sizes a first run at 282 tools
// writes (the eleven servers of ../shared/catalogs, encoded by tools/mcp:
// about 480 KB, two lists over 64 KiB), with made-up bytes: the store
// keeps them opaque.
func firstRunCatalogs() []tools.CatalogEntry {
	sizes := []int{4640, 29361, 60300, 230566, 76215, 32048, 7653, 12973, 15854, 10750, 2448}
	es := make([]tools.CatalogEntry, len(sizes))
	x := uint32(1)
	for i, n := range sizes {
		b := make([]byte, n)
		for j := range b {
			x = x*1664525 + 1013904223
			b[j] = ' ' + byte(x>>24)%95
		}
		es[i] = tools.CatalogEntry{Server: fmt.Sprintf("server-%d", i), ConfigHash: fmt.Sprintf("%064x", i),
			ServerName: fmt.Sprintf("server %d", i), ServerVersion: "1.0.0", Description: "a server", Tools: b}
	}
	return es
}
