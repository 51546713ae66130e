package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
)

func bigList(seed byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + (byte(i)+seed)%26
	}
	return b
}

func catalogFiles(t *testing.T, d *DB) []string {
	t.Helper()
	ents, err := os.ReadDir(d.catalogDir())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// A large list goes to a file the row names; a small one stays in the row.
func TestCatalogLargeListInFile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		size   int
		inFile bool
	}{
		{"small", catalogFileMin - 1, false},
		{"large", catalogFileMin, true},
		{"thousands of tools", 6 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := openTest(t)
			ctx := t.Context()
			list := bigList(1, tc.size)
			if err := d.SaveCatalog(ctx, tools.CatalogEntry{Server: "s", ConfigHash: "h", Tools: list}); err != nil {
				t.Fatal(err)
			}
			var stored []byte
			if err := d.sql.QueryRowContext(ctx, `SELECT tools FROM mcp_catalog`).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(list)
			hash := hex.EncodeToString(sum[:])
			if _, ref := parseCatalogRef(stored); ref != tc.inFile {
				t.Fatalf("row holds a reference: %v, want %v", ref, tc.inFile)
			}
			if files := catalogFiles(t, d); tc.inFile && (len(files) != 1 || files[0] != hash) {
				t.Fatalf("files %v, want [%s]", files, hash)
			} else if !tc.inFile && len(files) != 0 {
				t.Fatalf("files %v for a list kept in the row", files)
			}
			got, err := d.LoadCatalog(ctx, "s", "h")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Tools, list) || got.ToolsHash != hash {
				t.Fatalf("loaded %d bytes (hash %s), want %d (%s)", len(got.Tools), got.ToolsHash, len(list), hash)
			}
		})
	}
}

// A file that is gone, cut short or replaced reads as no cached list (the
// caller lists the server again), never as an error or a wrong list.
func TestCatalogFileDamagedIsAMiss(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(path string) error
	}{
		{"removed", os.Remove},
		{"cut short", func(p string) error { return os.Truncate(p, 100) }},
		{"directory gone", func(p string) error { return os.RemoveAll(filepath.Dir(p)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := openTest(t)
			ctx := t.Context()
			list := bigList(2, 200_000)
			if err := d.SaveCatalog(ctx, tools.CatalogEntry{Server: "s", ConfigHash: "h", Tools: list}); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(list)
			if err := tc.damage(filepath.Join(d.catalogDir(), hex.EncodeToString(sum[:]))); err != nil {
				t.Fatal(err)
			}
			if _, err := d.LoadCatalog(ctx, "s", "h"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("load: %v, want ErrNotFound", err)
			}
			// Refilled: saved again, it loads.
			if err := d.SaveCatalog(ctx, tools.CatalogEntry{Server: "s", ConfigHash: "h", Tools: list}); err != nil {
				t.Fatal(err)
			}
			if got, err := d.LoadCatalog(ctx, "s", "h"); err != nil || !bytes.Equal(got.Tools, list) {
				t.Fatalf("after refill: %v", err)
			}
		})
	}
}

// A row written before the files (the list inline, however large) still
// loads.
func TestCatalogInlineRowStillReads(t *testing.T) {
	d, _ := openTest(t)
	ctx := t.Context()
	list := bigList(3, 1<<20)
	sum := sha256.Sum256(list)
	if _, err := d.sql.ExecContext(ctx, `INSERT INTO mcp_catalog (server, config_hash, tools, tools_hash, listed_at)
		VALUES ('s', 'h', ?, ?, 1)`, list, hex.EncodeToString(sum[:])); err != nil {
		t.Fatal(err)
	}
	got, err := d.LoadCatalog(ctx, "s", "h")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Tools, list) || got.ToolsHash != hex.EncodeToString(sum[:]) {
		t.Fatal("an inline list did not load as written")
	}
}

// Writing into a loaded list (a private mapping) changes neither the file
// nor a later load.
func TestCatalogFileLoadedBytesArePrivate(t *testing.T) {
	d, _ := openTest(t)
	ctx := t.Context()
	list := bigList(4, 100_000)
	if err := d.SaveCatalog(ctx, tools.CatalogEntry{Server: "s", ConfigHash: "h", Tools: list}); err != nil {
		t.Fatal(err)
	}
	a, err := d.LoadCatalog(ctx, "s", "h")
	if err != nil {
		t.Fatal(err)
	}
	a.Tools[0], a.Tools[len(a.Tools)-1] = '!', '!'
	b, err := d.LoadCatalog(ctx, "s", "h")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Tools, list) {
		t.Fatal("a write into a loaded list reached the cache")
	}
}

// Replaced lists' files go once they are older than catalogFileKeep (a
// newer one may be another process's, its row not yet committed); Clear
// removes them all.
func TestCatalogFilesPruned(t *testing.T) {
	d, _ := openTest(t)
	ctx := t.Context()
	first, second := bigList(5, 100_000), bigList(6, 100_000)
	save := func(list []byte) {
		t.Helper()
		if err := d.SaveCatalog(ctx, tools.CatalogEntry{Server: "s", ConfigHash: "h", Tools: list}); err != nil {
			t.Fatal(err)
		}
	}
	save(first)
	save(second)
	if n := len(catalogFiles(t, d)); n != 2 {
		t.Fatalf("%d files right after a replacement, want 2 (the old one is too new to remove)", n)
	}
	old := time.Now().Add(-2 * catalogFileKeep)
	for _, f := range catalogFiles(t, d) {
		if err := os.Chtimes(filepath.Join(d.catalogDir(), f), old, old); err != nil {
			t.Fatal(err)
		}
	}
	save(second) // the same list: its file is touched, the other pruned
	sum := sha256.Sum256(second)
	if files := catalogFiles(t, d); len(files) != 1 || files[0] != hex.EncodeToString(sum[:]) {
		t.Fatalf("files after pruning: %v", files)
	}
	if got, err := d.LoadCatalog(ctx, "s", "h"); err != nil || !bytes.Equal(got.Tools, second) {
		t.Fatalf("load after pruning: %v", err)
	}
	if err := d.ClearCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	if files := catalogFiles(t, d); len(files) != 0 {
		t.Fatalf("files after clear: %v", files)
	}
}

// A batch of lists as large as a large list goes to one file, a pack the
// rows name slices of (lists of catalogRefMax bytes or less stay in their
// rows); each list loads as written, and writing into a loaded one
// changes neither another list nor a later load.
func TestSaveCatalogsPacksABatch(t *testing.T) {
	d, _ := openTest(t)
	ctx := t.Context()
	es := []tools.CatalogEntry{
		{Server: "a", ConfigHash: "h", Tools: bigList(7, 40_000)},
		{Server: "b", ConfigHash: "h", Tools: []byte("tiny")},
		{Server: "c", ConfigHash: "h", Tools: bigList(8, 5_000)}, // ends mid-page
		{Server: "d", ConfigHash: "h", Tools: bigList(9, catalogFileMin)},
	}
	if err := d.SaveCatalogs(ctx, es); err != nil {
		t.Fatal(err)
	}
	if files := catalogFiles(t, d); len(files) != 1 {
		t.Fatalf("files %v, want one pack", files)
	}
	for _, e := range es {
		var stored []byte
		if err := d.sql.QueryRowContext(ctx, `SELECT tools FROM mcp_catalog WHERE server = ?`, e.Server).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		loc, ref := parseCatalogRef(stored)
		if inPack := len(e.Tools) > catalogRefMax; ref != inPack || ref && !loc.pack {
			t.Fatalf("%s: row holds %.40q, want a pack reference: %v", e.Server, stored, inPack)
		}
	}
	load := func(server string) []byte {
		t.Helper()
		got, err := d.LoadCatalog(ctx, server, "h")
		if err != nil {
			t.Fatalf("%s: %v", server, err)
		}
		return got.Tools
	}
	for _, e := range es {
		// A slice of the pack has no room beyond its list.
		if got := load(e.Server); !bytes.Equal(got, e.Tools) || len(got) > catalogRefMax && cap(got) != len(got) {
			t.Fatalf("%s: loaded %d bytes (room for %d), want %d as written", e.Server, len(got), cap(got), len(e.Tools))
		}
	}
	c := load("c")
	c[0], c[len(c)-1] = '!', '!'
	for _, e := range es {
		if !bytes.Equal(load(e.Server), e.Tools) {
			t.Fatalf("a write into the loaded list of c reached %s", e.Server)
		}
	}
}

// A pack cut short or gone reads as no cached list for every row naming
// it; a pack stays while a row names it, and goes once none does and it
// is older than catalogFileKeep.
func TestCatalogPackDamagedAndPruned(t *testing.T) {
	ctx := t.Context()
	batch := func() []tools.CatalogEntry {
		return []tools.CatalogEntry{
			{Server: "a", ConfigHash: "h", Tools: bigList(10, 50_000)},
			{Server: "b", ConfigHash: "h", Tools: bigList(11, 50_000)},
		}
	}
	for _, tc := range []struct {
		name   string
		damage func(path string) error
	}{
		{"removed", os.Remove},
		{"cut short", func(p string) error { return os.Truncate(p, 60_000) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := openTest(t)
			if err := d.SaveCatalogs(ctx, batch()); err != nil {
				t.Fatal(err)
			}
			if err := tc.damage(filepath.Join(d.catalogDir(), catalogFiles(t, d)[0])); err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"a", "b"} {
				if _, err := d.LoadCatalog(ctx, s, "h"); !errors.Is(err, ErrNotFound) {
					t.Fatalf("%s: %v, want ErrNotFound", s, err)
				}
			}
		})
	}
	t.Run("pruned", func(t *testing.T) {
		d, _ := openTest(t)
		if err := d.SaveCatalogs(ctx, batch()); err != nil {
			t.Fatal(err)
		}
		pack := catalogFiles(t, d)[0]
		age := func() {
			old := time.Now().Add(-2 * catalogFileKeep)
			for _, f := range catalogFiles(t, d) {
				if err := os.Chtimes(filepath.Join(d.catalogDir(), f), old, old); err != nil {
					t.Fatal(err)
				}
			}
		}
		age()
		// a's list replaced (in a file of its own): b still names the pack.
		if err := d.SaveCatalog(ctx, tools.CatalogEntry{Server: "a", ConfigHash: "h", Tools: bigList(12, catalogFileMin)}); err != nil {
			t.Fatal(err)
		}
		if files := catalogFiles(t, d); len(files) != 2 || !slices.Contains(files, pack) {
			t.Fatalf("files %v, want the pack and a's new file", files)
		}
		if got, err := d.LoadCatalog(ctx, "b", "h"); err != nil || !bytes.Equal(got.Tools, batch()[1].Tools) {
			t.Fatalf("b after a's replacement: %v", err)
		}
		age()
		if err := d.SaveCatalog(ctx, tools.CatalogEntry{Server: "b", ConfigHash: "h", Tools: bigList(13, catalogFileMin)}); err != nil {
			t.Fatal(err)
		}
		if files := catalogFiles(t, d); len(files) != 2 || slices.Contains(files, pack) {
			t.Fatalf("files %v, want a's and b's files, the pack no row names pruned", files)
		}
	})
}

// A row read as holding a long list, then replaced by another agent's
// save before the list itself is read (a pack's reference or a short
// list now), loads as what it holds then: the reference was returned as
// the list, which tools/mcp then took for a damaged cache entry.
func TestLoadCatalogOfARowReplacedMeanwhile(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		name  string
		saved []tools.CatalogEntry // by the other agent, between the two reads
	}{
		{"into a pack", []tools.CatalogEntry{
			{Server: "s", ConfigHash: "h", Tools: bigList(1, 40_000)},
			{Server: "t", ConfigHash: "h", Tools: bigList(2, 40_000)},
		}},
		{"into a file", []tools.CatalogEntry{{Server: "s", ConfigHash: "h", Tools: bigList(3, catalogFileMin)}}},
		{"into a short list", []tools.CatalogEntry{{Server: "s", ConfigHash: "h", Tools: []byte(`["short"]`)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, path := openTest(t)
			other, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			if err := d.SaveCatalog(ctx, tools.CatalogEntry{Server: "s", ConfigHash: "h", Tools: bigList(0, 1000)}); err != nil {
				t.Fatal(err)
			}
			testHookCatalogSized = func() {
				testHookCatalogSized = nil
				if err := other.SaveCatalogs(ctx, tc.saved); err != nil {
					t.Error(err)
				}
			}
			t.Cleanup(func() { testHookCatalogSized = nil })
			got, err := d.LoadCatalog(ctx, "s", "h")
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.saved[0].Tools; !bytes.Equal(got.Tools, want) {
				t.Fatalf("loaded %.60q, want the list saved meanwhile (%d bytes)", got.Tools, len(want))
			}
			if sum := sha256.Sum256(got.Tools); got.ToolsHash != hex.EncodeToString(sum[:]) {
				t.Fatalf("hash %s is not the loaded list's", got.ToolsHash)
			}
		})
	}
}
