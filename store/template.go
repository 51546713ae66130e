package store

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// A new database is a copy of a database the migrations made once, when
// the template was generated (template.db.gz, about 2 KB gzipped): writing
// it costs a few hundred microseconds, where running the migrations
// through goose cost a first run about 15 ms of CPU (goose's version
// table, one transaction a migration, SQLite parsing and building every
// table and index) on the start's path. The template is a file the
// migrations produced, in WAL mode, with goose's version rows, so a
// database made from it is the one the migrations make.
//
// After adding or changing a migration, regenerate it:
//
//	go test ./store -run TestNewDatabaseTemplate -update
//
// TestNewDatabaseTemplate fails while it is stale (it compares the
// template's schema, pragmas and rows with a database the migrations make
// now). A stale template is still correct at run time: Open migrates what
// the template lacks, as it does an old database, only slower.

//go:embed template.db.gz
var templateGz []byte

// templateDB returns the bytes of a new database.
func templateDB() ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(templateGz))
	if err != nil {
		return nil, fmt.Errorf("read the new-database template: %w", err)
	}
	// io.ReadAll's loop, from a buffer of the size gzip's trailer gives
	// (ISIZE, the length mod 2^32) and a little more to meet the end in:
	// io.ReadAll grew and copied its buffer nine times on the way to the
	// 96 KB.
	size := 0
	if n := len(templateGz); n >= 4 {
		size = int(binary.LittleEndian.Uint32(templateGz[n-4:]))
	}
	b := make([]byte, 0, size+512)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := zr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read the new-database template: %w", err)
		}
	}
}

// writeTemplate writes a new database to f (made by createFile, empty)
// and syncs it.
func writeTemplate(f *os.File) error {
	b, err := templateDB()
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		return fsErr(err)
	}
	return fsErr(f.Sync())
}
