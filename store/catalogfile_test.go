package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
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
			if _, _, ref := parseCatalogRef(stored); ref != tc.inFile {
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
