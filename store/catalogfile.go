package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A large cached tool list lives in a file of its own beside the database
// (DB.catalogDir, named by the sha256 of its bytes), and its mcp_catalog
// row holds a reference to it in the tools column. Read from SQLite, a list
// of thousands of tools is a chain of 4 KiB overflow pages: one pread a
// page into a buffer of SQLite's, then a copy into Go memory, every page of
// both freshly faulted in. That was most of a warm start's CPU at 5,000
// tools (60 of the ~110 ms before the first request). The file is mapped
// instead (read on systems without mmap): no copy, and a page is brought in
// only when something reads it.
//
// Durability: the file is written to a temporary name, synced and renamed
// before the row that names it commits, and is never changed afterwards
// (another list is another name), so a row never names a partial file. A
// file that is missing or of another size reads as no cached list, which
// the caller refills from the server, as for a database without the row.

// catalogFileMin is the size from which a list goes to a file: smaller
// lists fit in a few pages and read quickly from SQLite.
const catalogFileMin = 64 << 10

// catalogRefPrefix starts a tools column that names a file:
// "agent-catalog-file-1 <sha256 hex> <size>". An agent from before the
// files reads it as a list of an unknown format and lists the server again.
const catalogRefPrefix = "agent-catalog-file-1 "

// catalogFileKeep is how long an unreferenced file is left alone: another
// process may have written it and not yet committed the row naming it.
const catalogFileKeep = 10 * time.Minute

// catalogDir holds the list files of the database at d.path.
func (d *DB) catalogDir() string { return d.path + "-catalog" }

func catalogRef(hash string, size int) []byte {
	return []byte(catalogRefPrefix + hash + " " + strconv.Itoa(size))
}

// parseCatalogRef reads a tools column written by catalogRef.
func parseCatalogRef(b []byte) (hash string, size int, ok bool) {
	if len(b) > 256 || !strings.HasPrefix(string(b), catalogRefPrefix) {
		return "", 0, false
	}
	hash, n, found := strings.Cut(string(b[len(catalogRefPrefix):]), " ")
	size, err := strconv.Atoi(n)
	if !found || err != nil || size <= 0 || !validHash(hash) {
		return "", 0, false
	}
	return hash, size, true
}

// validHash: 64 lower-case hex digits, so a name from the database can
// never reach outside the directory.
func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// writeCatalogFile stores b as the file of hash (its sha256), unless a
// file of that name and size is there already.
func (d *DB) writeCatalogFile(hash string, b []byte) error {
	dir := d.catalogDir()
	p := filepath.Join(dir, hash)
	if st, err := os.Stat(p); err == nil && st.Size() == int64(len(b)) {
		// Touched, so pruning sees it as in use.
		now := time.Now()
		_ = os.Chtimes(p, now, now)
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, hash+".tmp-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// readCatalogFile returns the bytes of the file of hash, which must be
// size long. They are a private mapping where mmap exists: writes to them
// stay in this process, and they live as long as the process.
func (d *DB) readCatalogFile(hash string, size int) ([]byte, error) {
	f, err := os.Open(filepath.Join(d.catalogDir(), hash))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() != int64(size) {
		return nil, fmt.Errorf("catalog file %s: %d bytes, want %d", hash, st.Size(), size)
	}
	return mapFile(f, size)
}

// pruneCatalogFiles removes the files no row names (and leftover
// temporary files), once they are older than catalogFileKeep.
func (d *DB) pruneCatalogFiles(ctx context.Context) error {
	ents, err := os.ReadDir(d.catalogDir())
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	// length() of a BLOB reads no overflow page: the inline lists are
	// skipped without being read.
	rows, err := d.sql.QueryContext(ctx, `SELECT tools FROM mcp_catalog WHERE length(tools) <= 256`)
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	used := map[string]bool{}
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return mapErr(err)
		}
		if h, _, ok := parseCatalogRef(b); ok {
			used[h] = true
		}
	}
	if err := rows.Err(); err != nil {
		return mapErr(err)
	}
	cutoff := time.Now().Add(-catalogFileKeep)
	for _, e := range ents {
		if used[e.Name()] {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
			_ = os.Remove(filepath.Join(d.catalogDir(), e.Name()))
		}
	}
	return nil
}
