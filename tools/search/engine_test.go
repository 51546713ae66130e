package search

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestWordTable(t *testing.T) {
	var tab wordTable
	const n = 5000 // several grows
	for i := range n {
		w := []byte(fmt.Sprintf("w%dx", i))
		if _, ok := tab.get(w, wordHash(w)); ok {
			t.Fatalf("%s found before put", w)
		}
		tab.put(w, wordHash(w), int32(i))
	}
	for i := range n {
		w := []byte(fmt.Sprintf("w%dx", i))
		if id, ok := tab.get(w, wordHash(w)); !ok || id != int32(i) {
			t.Fatalf("get(%s) = %d, %v; want %d", w, id, ok, i)
		}
	}
	for _, w := range []string{"", "w", "w1", "w1xx", "a-very-long-word-of-forty-bytes-or-so-xx"} {
		if _, ok := tab.get([]byte(w), wordHash([]byte(w))); ok {
			t.Errorf("get(%q) found a word never put", w)
		}
	}
	// Words up to 8 bytes are compared as numbers: every length around
	// 8, words that differ only in their last byte, and words in slices
	// with no room past them (read byte by byte).
	var short wordTable
	const letters = "abcdefghijkl"
	for n := 1; n <= len(letters); n++ {
		w := []byte(letters[:n])
		short.put(w, wordHash(w), int32(n))
	}
	for n := 1; n <= len(letters); n++ {
		for _, w := range [][]byte{[]byte(letters[:n]), slices.Clip([]byte(letters[:n])), append([]byte(letters[:n]), "zzzzzzzz"...)[:n]} {
			if id, ok := short.get(w, wordHash(w)); !ok || id != int32(n) {
				t.Errorf("get(%q, cap %d) = %d, %v; want %d", w, cap(w), id, ok, n)
			}
		}
		other := []byte(letters[:n])
		other[n-1] = 'z'
		if id, ok := short.get(other, wordHash(other)); ok {
			t.Errorf("get(%q) = %d, a word never put", other, id)
		}
	}
}

// TestPhraseAtQueryTime checks that pairs of adjacent query terms, matched
// against the docs' term order at query time, favour the doc that has the
// words together and in order, and nothing else.
func TestPhraseAtQueryTime(t *testing.T) {
	docs := []Doc{
		{Name: "apart", Description: "The index of greed, with some fear in it.", Server: "a"},
		{Name: "together", Description: "The fear greed index of the market.", Server: "b"},
		{Name: "unrelated", Description: "Lists files.", Server: "c"},
	}
	for _, cfg := range []Config{DefaultConfig(), func() Config { c := DefaultConfig(); c.PhraseFeedback = true; return c }()} {
		ix := NewWithConfig(docs, cfg)
		hits, err := ix.Search("fear greed index", Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Name)
		}
		if !slices.Equal(got, []string{"together", "apart"}) {
			t.Errorf("phrase feedback %v: hits %v, want together then apart", cfg.PhraseFeedback, got)
		}
		s := ix.snap.Load()
		fear, greed := s.global[s.vocab["fear"]], s.global[s.vocab["greed"]]
		if !s.mayHavePair(fear, greed) {
			t.Error("pair filter rules out a pair that occurs")
		}
	}
}

// TestNamePrior: a tool whose name the query says in full comes before one
// whose long description repeats single query words.
func TestNamePrior(t *testing.T) {
	docs := []Doc{
		{Name: "noisy", Description: "Stock news, stock prices, stock charts and history of every stock.", Server: "a"},
		{Name: "get_stock_history", Description: "Price series of a ticker.", Server: "b"},
	}
	cfg := DefaultConfig()
	cfg.FeedbackDocs = 0
	for _, prior := range []float64{0, 0.3} {
		cfg.NamePrior = prior
		hits, _ := NewWithConfig(docs, cfg).Search("get the stock history", Options{})
		if len(hits) != 2 {
			t.Fatalf("prior %v: hits %v", prior, hits)
		}
		if prior > 0 && hits[0].Name != "get_stock_history" {
			t.Errorf("prior %v: %s first, want get_stock_history", prior, hits[0].Name)
		}
	}
}

// TestSchemaMemo: tools with the same schema get the same parameter terms,
// whether analysed first or from the memo.
func TestSchemaMemo(t *testing.T) {
	schema := json.RawMessage(`{"properties":{"owner":{"description":"Repository owner"},"repo":{"type":"string"}}}`)
	ix := New([]Doc{
		{Name: "one", Schema: schema, Server: "s"},
		{Name: "two", Schema: schema, Server: "s"},
		{Name: "three", Schema: json.RawMessage(`{"properties":{"repo":{}}}`), Server: "s"},
	})
	s := ix.snap.Load()
	params := func(d int) map[string]uint16 {
		m := map[string]uint16{}
		for _, tc := range s.docs[d].terms {
			if tc.tf[FieldParams] > 0 {
				m[ix.an.termStr[tc.id]] = tc.tf[FieldParams]
			}
		}
		return m
	}
	one, two := params(0), params(1)
	if fmt.Sprint(one) != fmt.Sprint(two) || one["owner"] != 2 || one["repositori"] != 1 {
		t.Errorf("params: one %v, two %v", one, two)
	}
	if three := params(2); fmt.Sprint(three) != "map[repo:1]" {
		t.Errorf("params of three: %v", three)
	}
}

// TestPhraseFeedbackConcurrent is for -race: the pair statistics feedback
// needs are built by whichever search needs them first.
func TestPhraseFeedbackConcurrent(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PhraseFeedback = true
	ix := NewWithConfig([]Doc{
		{Name: "read_file", Description: "Read the contents of a file.", Server: "fs"},
		{Name: "write_file", Description: "Write the contents of a file.", Server: "fs"},
	}, cfg)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := ix.Search("read file contents", Options{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

// TestFillPostingsHalves: the postings of a catalog large enough to be
// filled in two halves at once are those of one pass, also where a
// weightless field gives terms an impact of zero and the first half's
// share of a term's postings shrinks.
func TestFillPostingsHalves(t *testing.T) {
	var docs []Doc
	for i := range 3 * parallelPostings {
		docs = append(docs, Doc{
			Name:        fmt.Sprintf("tool_%d_w%d", i, i%37),
			Description: fmt.Sprintf("word%d word%d common", i%11, i%53),
			Server:      fmt.Sprintf("s%d", i%7),
		})
	}
	cfg := DefaultConfig()
	cfg.Weight[FieldName] = 0 // names' terms only: impact zero
	postings := func(procs int) [][]posting {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return NewWithConfig(docs, cfg).snap.Load().postings
	}
	one, two := postings(1), postings(2)
	if len(one) != len(two) {
		t.Fatalf("%d terms in one pass, %d in two halves", len(one), len(two))
	}
	empty := 0
	for i := range one {
		if !slices.Equal(one[i], two[i]) {
			t.Fatalf("term %d: one pass %v, two halves %v", i, one[i], two[i])
		}
		if len(one[i]) == 0 {
			empty++
		}
	}
	if empty == 0 {
		t.Fatal("no term with zero impact everywhere: the test does not reach the move down")
	}
}

// toolKey is strings.TrimSpace, with a shortcut for names that need none.
func TestToolKey(t *testing.T) {
	for _, s := range []string{"read_file", " read_file", "read_file\t", "\u00a0read_file", "read_file\u3000", "", " ", "é", "a"} {
		if got, want := toolKey(s), strings.TrimSpace(s); got != want {
			t.Errorf("toolKey(%q) = %q, want %q", s, got, want)
		}
	}
}
