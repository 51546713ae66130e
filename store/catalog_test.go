package store

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
)

func TestCatalogSaveLoad(t *testing.T) {
	d, _ := openTest(t)
	ctx := t.Context()
	if _, err := d.LoadCatalog(ctx, "fs", "h1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty cache: %v", err)
	}
	e := tools.CatalogEntry{Server: "fs", ConfigHash: "h1", ServerName: "secure-filesystem", ServerVersion: "1.0",
		Instructions: "Use absolute paths.", Description: "files", Tools: []byte(`[{"name":"read","inputSchema":{"type":"object"}}]`)}
	if err := d.SaveCatalog(ctx, e); err != nil {
		t.Fatal(err)
	}
	got, err := d.LoadCatalog(ctx, "fs", "h1")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Tools) != string(e.Tools) || got.ServerName != e.ServerName || got.ServerVersion != "1.0" ||
		got.Instructions != e.Instructions || got.Description != "files" || got.ToolsHash == "" || got.ListedAt.IsZero() {
		t.Fatalf("loaded %+v", got)
	}
	// Another config of the same server is another entry.
	if _, err := d.LoadCatalog(ctx, "fs", "h2"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("other config: %v", err)
	}
	// Saving again replaces.
	e.Tools = []byte(`[]`)
	if err := d.SaveCatalog(ctx, e); err != nil {
		t.Fatal(err)
	}
	if got2, _ := d.LoadCatalog(ctx, "fs", "h1"); string(got2.Tools) != "[]" || got2.ToolsHash == got.ToolsHash {
		t.Fatalf("replaced: %+v", got2)
	}
	// A config not listed for a month goes when another is saved.
	old := tools.CatalogEntry{Server: "fs", ConfigHash: "old", Tools: []byte(`[]`), ListedAt: time.Now().Add(-40 * 24 * time.Hour)}
	if err := d.SaveCatalog(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := d.SaveCatalog(ctx, e); err != nil {
		t.Fatal(err)
	}
	if _, err := d.LoadCatalog(ctx, "fs", "old"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("old config kept: %v", err)
	}
	if err := d.ClearCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.LoadCatalog(ctx, "fs", "h1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after clear: %v", err)
	}
}

// LoadCatalog keeps the driver's slice of the tools blob (no copy): the
// bytes must stay as loaded while the database is used afterwards.
func TestLoadCatalogKeepsItsBytes(t *testing.T) {
	d, _ := openTest(t)
	ctx := t.Context()
	a := make([]byte, 200_000)
	for i := range a {
		a[i] = byte('a' + i%26)
	}
	if err := d.SaveCatalog(ctx, tools.CatalogEntry{Server: "a", ConfigHash: "h", Tools: a}); err != nil {
		t.Fatal(err)
	}
	if err := d.SaveCatalog(ctx, tools.CatalogEntry{Server: "b", ConfigHash: "h", Tools: bytes.Repeat([]byte("z"), 200_000)}); err != nil {
		t.Fatal(err)
	}
	got, err := d.LoadCatalog(ctx, "a", "h")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := d.LoadCatalog(ctx, "b", "h"); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got.Tools, a) {
		t.Fatal("a loaded entry changed when the database was read again")
	}
}

// SaveCatalogs writes every entry in one transaction: all of them, or
// none when one is refused.
func TestSaveCatalogs(t *testing.T) {
	for _, tt := range []struct {
		name  string
		es    []tools.CatalogEntry
		saved bool
	}{
		{"each saved", []tools.CatalogEntry{
			{Server: "a", ConfigHash: "h1", Tools: []byte("list a")},
			{Server: "b", ConfigHash: "h1", Tools: bytes.Repeat([]byte("b"), catalogFileMin)}, // in a file
			{Server: "c", ConfigHash: "h2", Tools: []byte("list c"), ServerName: "C"},
		}, true},
		{"none saved when one is refused", []tools.CatalogEntry{
			{Server: "a", ConfigHash: "h1", Tools: bytes.Repeat([]byte("a"), catalogFileMin)},
			{Server: "b", Tools: []byte("no config hash")},
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, _ := openTest(t)
			err := db.SaveCatalogs(t.Context(), tt.es)
			if (err == nil) != tt.saved {
				t.Fatalf("SaveCatalogs: %v", err)
			}
			if files, _ := os.ReadDir(db.catalogDir()); !tt.saved && len(files) > 0 {
				t.Fatalf("a refused batch left %d files", len(files))
			}
			for _, e := range tt.es {
				got, err := db.LoadCatalog(t.Context(), e.Server, e.ConfigHash)
				if !tt.saved {
					if !errors.Is(err, ErrNotFound) {
						t.Fatalf("%s after a refused batch: %v, want ErrNotFound", e.Server, err)
					}
					continue
				}
				if err != nil || !bytes.Equal(got.Tools, e.Tools) || got.ServerName != e.ServerName {
					t.Fatalf("%s: %v, %d bytes (want %d), server name %q", e.Server, err, len(got.Tools), len(e.Tools), got.ServerName)
				}
			}
		})
	}
}
