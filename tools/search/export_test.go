package search

// ResetTables forgets the WordNet tables read so far, as a new process
// starts without them: BenchmarkFirstSearch measures what reading them
// costs the first search.
func ResetTables() {
	wordnetTable = newLemmaTable(wordnetTab)
	derivedTable = newLemmaTable(derivedTab)
}
