package main

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agent-dev/agent/tools/search/internal/stemmer"
)

// blockSize is how many bytes of lines are compressed together: the unit a
// lookup decompresses. Smaller blocks compress worse (each starts without
// a window), larger ones cost a process's first lookups more.
var blockSize = 2048

// line is one lemma of a table: its Porter stem, itself and its words.
type line struct{ stem, lemma, words string }

// write writes rel (lemma -> related words) as a table the search engine
// reads without parsing it whole (tools/search/wordnet.go, lemmaTable):
//
//	n                      uint32, the number of blocks
//	n × (end, size)        uint32 each: where block i's compressed bytes end
//	                       (from the start of the blocks) and its size
//	                       decompressed
//	n first stems          each followed by '\n'
//	the blocks             each raw DEFLATE of its lines
//
// all little-endian. A line is "stem lemma word word...\n"; lines are sorted
// by stem, then lemma, and the lines of one stem are never split between
// two blocks. The stems are the engine's own (internal/stemmer), computed
// here so that no process stems the 30,000 lemmas before its first search.
func write(out string, rel map[string]map[string]bool) error {
	lines := make([]line, 0, len(rel))
	for l, set := range rel {
		ws := make([]string, 0, len(set))
		for w := range set {
			ws = append(ws, w)
		}
		slices.Sort(ws)
		lines = append(lines, line{stemmer.Porter(l), l, strings.Join(ws, " ")})
	}
	slices.SortFunc(lines, func(a, b line) int {
		if c := strings.Compare(a.stem, b.stem); c != 0 {
			return c
		}
		return strings.Compare(a.lemma, b.lemma)
	})
	var (
		heads []string
		raw   []int
		data  bytes.Buffer
		ends  []int
		block bytes.Buffer
	)
	flush := func() error {
		if block.Len() == 0 {
			return nil
		}
		zw, err := flate.NewWriter(&data, flate.BestCompression)
		if err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
		if _, err := zw.Write(block.Bytes()); err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
		raw = append(raw, block.Len())
		ends = append(ends, data.Len())
		block.Reset()
		return nil
	}
	for i, l := range lines {
		if block.Len() >= blockSize && l.stem != lines[i-1].stem {
			if err := flush(); err != nil {
				return err
			}
		}
		if block.Len() == 0 {
			heads = append(heads, l.stem)
		}
		lemma := l.lemma
		if rest, ok := strings.CutPrefix(lemma, l.stem); ok {
			lemma = "~" + rest // most lemmas start with their stem
		}
		fmt.Fprintf(&block, "%s %s %s\n", l.stem, lemma, l.words)
	}
	if err := flush(); err != nil {
		return err
	}
	var f bytes.Buffer
	f.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(heads))))
	for i := range heads {
		f.Write(binary.LittleEndian.AppendUint32(nil, uint32(ends[i])))
		f.Write(binary.LittleEndian.AppendUint32(nil, uint32(raw[i])))
	}
	for _, h := range heads {
		f.WriteString(h)
		f.WriteByte('\n')
	}
	f.Write(data.Bytes())
	if err := os.WriteFile(out, f.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}
