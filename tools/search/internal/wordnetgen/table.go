package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agent-dev/agent/tools/search/internal/blocktab"
	"github.com/agent-dev/agent/tools/search/internal/stemmer"
)

// blockSize is how many bytes of lines are compressed together: the unit a
// lookup decompresses (see blocktab.Write).
var blockSize = 2048

// line is one lemma of a table: its Porter stem, itself and its words.
type line struct{ stem, lemma, words string }

// write writes rel (lemma -> related words) as a table of blocktab, whose
// lines are "stem lemma word word...", keyed by the lemma's Porter stem and
// sorted by stem, then lemma. A lemma that starts with its stem, as most
// do, is written "~" and the rest of it. The stems are the engine's own
// (internal/stemmer), computed here so that no process stems the 30,000
// lemmas before its first search.
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
	text := make([]string, len(lines))
	for i, l := range lines {
		lemma := l.lemma
		if rest, ok := strings.CutPrefix(lemma, l.stem); ok {
			lemma = "~" + rest
		}
		text[i] = l.stem + " " + lemma + " " + l.words
	}
	tab, err := blocktab.Write(text, ' ', blockSize)
	if err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	if err := os.WriteFile(out, tab, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}
