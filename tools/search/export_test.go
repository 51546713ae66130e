package search

import "github.com/agent-dev/agent/tools/search/internal/blocktab"

// ResetTables forgets the WordNet and CC-CEDICT tables read so far, as a
// new process starts without them: BenchmarkFirstSearch measures what
// reading them costs the first search.
func ResetTables() {
	wordnetTable = newLemmaTable(wordnetTab)
	derivedTable = newLemmaTable(derivedTab)
	cedict = blocktab.New(cedictTab, '\t')
}
