package store

import (
	"bytes"
	"errors"
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
