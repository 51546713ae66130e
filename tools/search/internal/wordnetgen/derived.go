package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// pointer is one lexical pointer of a synset: "+" (derivationally related
// form) or "\" (pertainym, or for an adverb the adjective it comes from).
type pointer struct {
	symbol   string
	key      string // pos file and offset of the target synset
	src, dst int    // word numbers, from 1
}

// synset is a synset's words in order (numbered from 1 by pointers) and its
// lexical pointers.
type synset struct {
	words []string
	ptrs  []pointer
}

// posFile maps a pointer's part-of-speech letter to its data file.
var posFile = map[string]string{"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}

// runDerived writes, for each single-word lemma, the single-word forms its
// most frequent senses are derivationally related to.
func runDerived(dict, out string, senses int) error {
	all := map[string]synset{}
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		if err := readSynsets(filepath.Join(dict, "data."+pos), pos, all); err != nil {
			return err
		}
	}
	rel := map[string]map[string]bool{}
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		if err := readIndex(filepath.Join(dict, "index."+pos), senses, func(lemma string, offs []string) {
			for _, o := range offs {
				ss := all[pos+" "+o]
				for _, p := range ss.ptrs {
					if p.src < 1 || p.src > len(ss.words) || ss.words[p.src-1] != lemma {
						continue
					}
					t := all[p.key]
					if p.dst < 1 || p.dst > len(t.words) {
						continue
					}
					w := t.words[p.dst-1]
					if w == lemma || !single(w) {
						continue
					}
					addRelated(rel, lemma, w)
				}
			}
		}); err != nil {
			return err
		}
	}
	return write(out, rel)
}

// readSynsets adds the synsets of one data file to all, keyed by "pos
// offset". A data line is "offset lex_filenum ss_type w_cnt(hex) [word
// lex_id]... p_cnt [symbol offset pos source/target(hex)]... | gloss".
func readSynsets(path, pos string, all map[string]synset) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue // licence header
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		fs := strings.Fields(line)
		bad := fmt.Errorf("%s: bad line %.40q", path, line)
		if len(fs) < 4 {
			continue
		}
		n, err := strconv.ParseInt(fs[3], 16, 32)
		i := 4 + 2*int(n)
		if err != nil || len(fs) < i+1 {
			return bad
		}
		var ss synset
		for k := range int(n) {
			w := strings.ToLower(fs[4+2*k])
			if j := strings.IndexByte(w, '('); j > 0 {
				w = w[:j] // adjective markers: "(a)", "(p)"
			}
			ss.words = append(ss.words, w)
		}
		pc, err := strconv.Atoi(fs[i])
		i++
		if err != nil || len(fs) < i+4*pc {
			return bad
		}
		for k := range pc {
			p := fs[i+4*k : i+4*k+4]
			if p[0] != "+" && p[0] != `\` {
				continue
			}
			st, err := strconv.ParseUint(p[3], 16, 16)
			if err != nil || posFile[p[2]] == "" {
				return bad
			}
			ss.ptrs = append(ss.ptrs, pointer{p[0], posFile[p[2]] + " " + p[1], int(st >> 8), int(st & 0xff)})
		}
		all[pos+" "+fs[0]] = ss
	}
	return sc.Err()
}
