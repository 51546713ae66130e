package search

import "github.com/agent-dev/agent/tools/search/internal/stemmer"

// stemmerFunc maps a Config.Stemmer name to its function. The stemmers live
// in internal/stemmer, which internal/wordnetgen shares: the WordNet tables
// it writes are keyed by the same stems.
func stemmerFunc(name string) func(string) string { return stemmer.Func(name) }

// stem is the Porter stemmer (Config.Stemmer "porter").
func stem(w string) string { return stemmer.Porter(w) }
