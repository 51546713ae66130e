package store

import (
	_ "embed"
	"os"
)

// A new database is a copy of a database the migrations made once, when
// the template was generated (template.db, 104 KB, most of it zeros):
// writing it costs a few hundred microseconds, where running the
// migrations through goose cost a first run about 15 ms of CPU (goose's
// version table, one transaction a migration, SQLite parsing and building
// every table and index) on the start's path. The template is a file the
// migrations produced, in WAL mode, with goose's version rows, so a
// database made from it is the one the migrations make. It is embedded as
// it is, not gzipped (4 KB): its write is then one write call from the
// binary's pages, where gunzipping it cost a first run about 0.6 ms of
// CPU (perf record of cold start-bench runs: the decompressor's tables,
// its window copies, a 104 KB buffer) while its servers list.
//
// After adding or changing a migration, regenerate it:
//
//	go test ./store -run TestNewDatabaseTemplate -update
//
// TestNewDatabaseTemplate fails while it is stale (it compares the
// template's schema, pragmas and rows with a database the migrations make
// now). A stale template is still correct at run time: Open migrates what
// the template lacks, as it does an old database, only slower.

//go:embed template.db
var template []byte

// writeTemplate writes a new database to f (made by createFile, empty)
// and syncs it.
func writeTemplate(f *os.File) error {
	if _, err := f.Write(template); err != nil {
		return fsErr(err)
	}
	return fsErr(f.Sync())
}
