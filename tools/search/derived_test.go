package search

import (
	"slices"
	"testing"
)

func TestDerivedFormsTable(t *testing.T) {
	for _, tt := range []struct{ word, form string }{
		{"financial", "finance"}, // a pertainym: the noun an adjective comes from
		{"invest", "investment"},
		{"read", "reader"},
		{"merge", "merger"},
		{"calculate", "calculator"},
	} {
		if got := derivedForms("porter", stem(tt.word)); !slices.Contains(got, tt.form) {
			t.Errorf("derived forms of %q = %v, want %q among them", tt.word, got, tt.form)
		}
	}
}

// A request says the verb or the adjective where a tool's name says the
// thing or the agent: the name prior counts the derived form as the word.
func TestNameDerivedForms(t *testing.T) {
	docs := []Doc{
		{Name: "pdf_merger", Description: "Combine several PDFs into a single document.", Server: "pdf"},
		{Name: "pdf_splitter", Description: "Split a PDF file into one file per page.", Server: "pdf"},
		{Name: "pdf_converter", Description: "Convert a PDF file to another file format.", Server: "pdf"},
		{Name: "FinanceTool", Description: "Financial insights on stocks, options and cryptocurrencies.", Server: "plugins"},
		{Name: "NewsTool", Description: "The latest news and updates from around the world, including stock market and financial news.", Server: "plugins"},
		{Name: "document_reader", Description: "Extract the text of a PDF, Word or Excel document.", Server: "docs"},
		{Name: "read_file", Description: "Read the contents of a file, a text file or a document.", Server: "fs"},
	}
	tests := []struct {
		query, tool string
		rank        int // its place with derived forms; without, it is lower
	}{
		{"merge the two PDF files into one file", "pdf_merger", 2},
	}
	rank := func(ix *Index, q, tool string) int {
		hits, err := ix.Search(q, Options{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range hits {
			if h.Name == tool {
				return i + 1
			}
		}
		return len(docs) + 1
	}
	on := NewWithConfig(docs, DefaultConfig())
	cfg := DefaultConfig()
	cfg.NameDerived = 0
	off := NewWithConfig(docs, cfg)
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			if got := rank(on, tt.query, tt.tool); got != tt.rank {
				t.Errorf("%s ranks %d, want %d", tt.tool, got, tt.rank)
			}
			if got := rank(off, tt.query, tt.tool); got <= tt.rank {
				t.Errorf("without derived forms %s ranks %d, not below %d: the case does not test them", tt.tool, got, tt.rank)
			}
		})
	}
}

// Warm reads both tables' indexes for the engine's stemmer, and both whole
// tables for another, so the first search does not.
func TestWarmReadsBothTables(t *testing.T) {
	const stemmer = "none" // a stemmer no other test reads the tables of
	Warm(stemmer)
	Warm("porter")
	for name, table := range map[string]*lemmaTable{"synonyms": wordnetTable, "derived forms": derivedTable} {
		if table.Blocks() == 0 {
			t.Errorf("Warm did not read the %s table's index", name)
		}
		v, ok := table.byStemmer.Load(stemmer)
		if !ok {
			t.Fatalf("Warm did not read the %s table for stemmer %q", name, stemmer)
		}
		if len(v.(*stemmedTable).m) == 0 {
			t.Errorf("the %s table Warm read is empty", name)
		}
	}
}
