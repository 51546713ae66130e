package store

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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

// catalogPackPrefix starts a tools column that names a list kept in a
// pack, the one file a batch of lists was written to (SaveCatalogs):
// "agent-catalog-pack-1 <pack name> <pack size> <offset> <size>". An agent
// from before the packs reads it as a list of an unknown format and lists
// the server again.
const catalogPackPrefix = "agent-catalog-pack-1 "

// catalogRefMax is the longest tools column that can be a reference; a
// list that short stays in its row.
const catalogRefMax = 256

func catalogRef(hash string, size int) []byte {
	return []byte(catalogRefPrefix + hash + " " + strconv.Itoa(size))
}

func catalogPackRef(pack string, packSize, off, size int) []byte {
	return []byte(catalogPackPrefix + pack + " " + strconv.Itoa(packSize) + " " + strconv.Itoa(off) + " " + strconv.Itoa(size))
}

// catalogLoc is where a reference says a list is: bytes [off, off+size)
// of the file name, which is fileSize long. A file of one list
// (catalogRef) is named by the list's sha256; a pack by packName.
type catalogLoc struct {
	name                string
	fileSize, off, size int
	pack                bool
}

// parseCatalogRef reads a tools column written by catalogRef or
// catalogPackRef.
func parseCatalogRef(b []byte) (loc catalogLoc, ok bool) {
	if len(b) > catalogRefMax {
		return catalogLoc{}, false
	}
	s := string(b)
	var nums []string
	switch {
	case strings.HasPrefix(s, catalogRefPrefix):
		nums = strings.Split(s[len(catalogRefPrefix):], " ")
		if len(nums) != 2 {
			return catalogLoc{}, false
		}
		nums = append(nums, "0", nums[1]) // the whole file
	case strings.HasPrefix(s, catalogPackPrefix):
		nums = strings.Split(s[len(catalogPackPrefix):], " ")
		if len(nums) != 4 {
			return catalogLoc{}, false
		}
		loc.pack = true
	default:
		return catalogLoc{}, false
	}
	loc.name = nums[0]
	var n [3]int
	for i := range n {
		v, err := strconv.Atoi(nums[i+1])
		if err != nil || v < 0 {
			return catalogLoc{}, false
		}
		n[i] = v
	}
	loc.fileSize, loc.off, loc.size = n[0], n[1], n[2]
	if !validHash(loc.name) || loc.size <= 0 || loc.off > loc.fileSize || loc.size > loc.fileSize-loc.off {
		return catalogLoc{}, false
	}
	return loc, true
}

// packName names the pack of lists (their sha256 and sizes, in order):
// another set of lists is another name, as for a file of one list.
func packName(hashes []string, sizes []int) string {
	h := sha256.New()
	for i, x := range hashes {
		h.Write([]byte(x + " " + strconv.Itoa(sizes[i]) + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
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

// catalogPart is a list to store: its bytes b, or write, which writes
// its size bytes (tools.CatalogEntry.WriteTools) so that a large list
// reaches its file without being built in memory.
type catalogPart struct {
	b     []byte
	write func(io.Writer) error
	size  int
}

// CatalogSizeError is a streamed list (tools.CatalogEntry.WriteTools) that
// wrote other than its ToolsSize bytes: stored, its row would name a slice
// of the file that is not the list, so it is not stored.
type CatalogSizeError struct{ Wrote, Size int }

func (e *CatalogSizeError) Error() string {
	return fmt.Sprintf("catalog list wrote %d bytes, said %d", e.Wrote, e.Size)
}

// catalogBufs are the buffers streamed lists are written through, kept
// between writes: a later save (a changed server, token counts written
// back) finds one already faulted in.
var catalogBufs = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, catalogBufSize) }}

// catalogBufSize: a few syscalls for a first run's pack of ~360 KB, and
// eight pages to fault in, not the ninety of the pack built in memory.
const catalogBufSize = 32 << 10

// writeTo writes the list to w (a buffered writer when streamed).
func (p catalogPart) writeTo(w io.Writer) error {
	if p.write == nil {
		_, err := w.Write(p.b)
		return err
	}
	cw := countWriter{w: w}
	if err := p.write(&cw); err != nil {
		return err
	}
	if cw.n != p.size {
		return &CatalogSizeError{Wrote: cw.n, Size: p.size}
	}
	return nil
}

// hash is the sha256 (hex) of the list, streamed through a pooled buffer
// when the list is.
func (p catalogPart) hash() (string, error) {
	h := sha256.New()
	if p.write == nil {
		h.Write(p.b)
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	bw := catalogBufs.Get().(*bufio.Writer)
	defer func() { bw.Reset(nil); catalogBufs.Put(bw) }()
	bw.Reset(h)
	err := p.writeTo(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// bytes is the list in memory (a list kept in its row).
func (p catalogPart) bytes() ([]byte, error) {
	if p.write == nil {
		return p.b, nil
	}
	var b bytes.Buffer
	b.Grow(p.size)
	if err := p.writeTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// countWriter counts what passes through it to w.
type countWriter struct {
	w io.Writer
	n int
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// writeCatalogFile stores parts, one after the other, as the file name
// (the sha256 of a list, or a packName), unless a file of that name and
// size is there already.
func (d *DB) writeCatalogFile(name string, parts ...catalogPart) error {
	size := 0
	for _, p := range parts {
		size += p.size
	}
	dir := d.catalogDir()
	p := filepath.Join(dir, name)
	if st, err := os.Stat(p); err == nil && st.Size() == int64(size) {
		// Touched, so pruning sees it as in use.
		now := time.Now()
		_ = os.Chtimes(p, now, now)
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, name+".tmp-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	bw := catalogBufs.Get().(*bufio.Writer)
	bw.Reset(f)
	for _, part := range parts {
		if err = part.writeTo(bw); err != nil {
			break
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	bw.Reset(nil)
	catalogBufs.Put(bw)
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

// readCatalogFile returns the list at loc, in a file that must be
// loc.fileSize long. Its bytes are a private mapping where mmap exists:
// writes to them stay in this process (each load maps the list afresh),
// and they live as long as the process.
func (d *DB) readCatalogFile(loc catalogLoc) ([]byte, error) {
	f, err := os.Open(filepath.Join(d.catalogDir(), loc.name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() != int64(loc.fileSize) {
		return nil, fmt.Errorf("catalog file %s: %d bytes, want %d", loc.name, st.Size(), loc.fileSize)
	}
	return mapFile(f, loc.off, loc.size)
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
	rows, err := d.sql.QueryContext(ctx, `SELECT tools FROM mcp_catalog WHERE length(tools) <= `+strconv.Itoa(catalogRefMax))
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
		if loc, ok := parseCatalogRef(b); ok {
			used[loc.name] = true
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
