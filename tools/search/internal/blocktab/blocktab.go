// Package blocktab is the layout of the search engine's embedded lookup
// tables (WordNet's synonyms and derived forms, CC-CEDICT's glosses): sorted
// lines, each starting with its key, in blocks compressed one by one, so
// that a process looks a key up by binary search and decompresses only the
// blocks its lookups touch instead of reading a table whole on its first
// search. The generators write tables with Write; the engine reads them
// with Table.
//
// A table is, all integers little-endian uint32:
//
//	n                      the number of blocks
//	n × (end, size)        where block i's compressed bytes end (from the
//	                       start of the blocks) and its size decompressed
//	n first keys           each followed by '\n'
//	the blocks             each raw DEFLATE of its lines
//
// A line is its key, the separator byte and the rest, then '\n'. Lines are
// sorted by key (bytewise), and the lines of one key are never split
// between two blocks.
package blocktab

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// Write lays lines (without their '\n', sorted by key) out as a table of
// blocks of about blockSize bytes: smaller blocks compress worse (each
// starts without a window), larger ones cost a first lookup more.
func Write(lines []string, sep byte, blockSize int) ([]byte, error) {
	var (
		heads []string
		sizes []int
		ends  []int
		data  bytes.Buffer
		block bytes.Buffer
	)
	zw, err := flate.NewWriter(&data, flate.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("deflate: %w", err)
	}
	flush := func() error {
		if block.Len() == 0 {
			return nil
		}
		zw.Reset(&data) // a new block: no window, so it reads on its own
		if _, err := zw.Write(block.Bytes()); err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
		sizes = append(sizes, block.Len())
		ends = append(ends, data.Len())
		block.Reset()
		return nil
	}
	prev := ""
	for i, l := range lines {
		k, _, ok := strings.Cut(l, string(sep))
		if !ok || k == "" || strings.ContainsRune(l, '\n') {
			return nil, fmt.Errorf("line %d (%.40q): want a key, %q and the rest, on one line", i, l, sep)
		}
		if i > 0 && k < prev {
			return nil, fmt.Errorf("line %d: key %q after %q: the lines must be sorted by key", i, k, prev)
		}
		if block.Len() >= blockSize && k != prev {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		if block.Len() == 0 {
			heads = append(heads, k)
		}
		block.WriteString(l)
		block.WriteByte('\n')
		prev = k
	}
	if err := flush(); err != nil {
		return nil, err
	}
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(heads)))
	for i := range heads {
		out = binary.LittleEndian.AppendUint32(out, uint32(ends[i]))
		out = binary.LittleEndian.AppendUint32(out, uint32(sizes[i]))
	}
	for _, h := range heads {
		out = append(append(out, h...), '\n')
	}
	return append(out, data.Bytes()...), nil
}

// Table reads a table written by Write, held in src (an embedded file),
// on first use; it is safe for concurrent use.
type Table struct {
	src string
	sep byte

	once   sync.Once
	heads  []string // each block's first key
	data   string   // the compressed blocks
	blocks []block
}

type block struct {
	start, end, size int // compressed bytes in data; size decompressed
	once             sync.Once
	text             string
	// lines are where the lines of text start, found as the block is
	// decompressed: a lookup's binary search then compares keys only,
	// which halved a lookup's time against probing byte offsets.
	lines []uint32
}

// New returns the table in src, whose lines separate their key with sep.
func New(src string, sep byte) *Table { return &Table{src: src, sep: sep} }

// errMalformed is a table that does not read: the embedded tables are
// generated and tested, so a lookup then finds nothing.
var errMalformed = errors.New("blocktab: malformed table")

// le32 reads a little-endian uint32 at s[i:].
func le32(s string, i int) int {
	return int(uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24)
}

// Open reads the table's index of blocks (a few microseconds: no block is
// decompressed), which the first lookup otherwise does.
func (t *Table) Open() error {
	t.once.Do(func() {
		s := t.src
		if len(s) < 4 {
			return
		}
		n := le32(s, 0)
		p := 4 + 8*n
		if n <= 0 || p > len(s) {
			return
		}
		heads := make([]string, n)
		blocks := make([]block, n)
		for i := range n {
			e := strings.IndexByte(s[p:], '\n')
			if e < 0 {
				return
			}
			heads[i] = s[p : p+e]
			p += e + 1
		}
		data := s[p:]
		start := 0
		for i := range blocks {
			end, size := le32(s, 4+8*i), le32(s, 8+8*i)
			if end < start || end > len(data) {
				return
			}
			blocks[i] = block{start: start, end: end, size: size}
			start = end
		}
		t.heads, t.data, t.blocks = heads, data, blocks
	})
	if t.blocks == nil {
		return errMalformed
	}
	return nil
}

// inflaters keeps flate readers between blocks: a new one allocates about
// 40 KB, more than the block it reads.
var inflaters sync.Pool

// Blocks returns how many blocks the table has.
func (t *Table) Blocks() int {
	if t.Open() != nil {
		return 0
	}
	return len(t.blocks)
}

// Head returns block i's first key, as the index says.
func (t *Table) Head(i int) string { return t.heads[i] }

// Text returns block i's lines, decompressing the block the first time.
func (t *Table) Text(i int) string {
	if t.Open() != nil {
		return ""
	}
	return t.read(i).text
}

// read returns block i, decompressing it the first time.
func (t *Table) read(i int) *block {
	b := &t.blocks[i]
	b.once.Do(func() {
		var sb strings.Builder
		sb.Grow(b.size)
		src := strings.NewReader(t.data[b.start:b.end])
		zr, ok := inflaters.Get().(io.ReadCloser)
		if ok {
			if err := zr.(flate.Resetter).Reset(src, nil); err != nil {
				return
			}
		} else {
			zr = flate.NewReader(src)
		}
		defer inflaters.Put(zr)
		if _, err := io.CopyN(&sb, zr, int64(b.size)); err != nil {
			return // a block that does not read: its keys are not found
		}
		text := sb.String()
		if !strings.HasSuffix(text, "\n") {
			return // written by Write, every line ends
		}
		lines := make([]uint32, 0, strings.Count(text, "\n"))
		for p := 0; p < len(text); {
			lines = append(lines, uint32(p))
			p += strings.IndexByte(text[p:], '\n') + 1
		}
		b.text, b.lines = text, lines
	})
	return b
}

// Lookup calls fn with the rest of each line whose key is key, in order,
// until fn returns false.
func (t *Table) Lookup(key string, fn func(rest string) bool) {
	if t.Open() != nil {
		return
	}
	// The last block whose first key is not past key.
	lo, hi := 0, len(t.heads)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if t.heads[mid] <= key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	i := lo - 1
	if i < 0 {
		return
	}
	b := t.read(i)
	// The first line whose key is not below key.
	k := sort.Search(len(b.lines), func(k int) bool {
		lk, _ := t.split(b.line(k))
		return lk >= key
	})
	for ; k < len(b.lines); k++ {
		lk, rest := t.split(b.line(k))
		if lk != key || !fn(rest) {
			return
		}
	}
}

// line returns line k of the block, without its '\n'.
func (b *block) line(k int) string {
	end := len(b.text)
	if k+1 < len(b.lines) {
		end = int(b.lines[k+1])
	}
	return b.text[b.lines[k] : end-1]
}

// split splits a line into its key and the rest.
func (t *Table) split(l string) (key, rest string) {
	if i := strings.IndexByte(l, t.sep); i >= 0 {
		return l[:i], l[i+1:]
	}
	return l, ""
}

// All calls fn with each line's key and rest, in order, decompressing
// every block: for a use that needs the whole table.
func (t *Table) All(fn func(key, rest string)) {
	for i := range t.Blocks() {
		text := t.Text(i)
		for len(text) > 0 {
			l, after, _ := strings.Cut(text, "\n")
			k, rest := t.split(l)
			fn(k, rest)
			text = after
		}
	}
}
