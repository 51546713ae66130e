package search_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agent-dev/agent/tools/search"
)

// TestNeighbours: a request that says nearly what an earlier request said
// finds the earlier request's tool, even when another tool, reached by
// many requests that each share a word of it, matches more words of the
// query in its pooled learned field.
func TestNeighbours(t *testing.T) {
	docs := []search.Doc{
		{Name: "trip_planner", Description: "Plans trips."},
		{Name: "travel_desk", Description: "Travel services."},
	}
	uses := []search.Use{{Query: "book cheap flight tickets to Lisbon in May", Tool: "trip_planner"}}
	for _, q := range []string{
		"book a hotel", "cheap hotels", "flight status", "flight delays", "tickets for a concert",
		"train tickets", "Lisbon museums", "Lisbon weather", "May holidays", "cheap car hire",
		"book a taxi", "events in May",
	} {
		uses = append(uses, search.Use{Query: q, Tool: "travel_desk"})
	}
	const query = "book cheap flight tickets to Lisbon for May"
	// The mechanism alone: every learned tool counted in full, as a tool
	// that many requests led to is (Config.LearnTrust).
	first := func(cfg search.Config) string {
		cfg.LearnTrust = 0
		t.Helper()
		hits, err := search.NewLearned(docs, cfg, uses).Search(query, search.Options{Limit: 2})
		if err != nil || len(hits) == 0 {
			t.Fatalf("search: %v %v", hits, err)
		}
		return hits[0].Name
	}
	off := search.DefaultConfig()
	off.Neighbours = 0
	if got := first(off); got != "travel_desk" {
		t.Fatalf("without neighbours the first tool is %s: the test needs the pooled field to prefer travel_desk", got)
	}
	if got := first(search.DefaultConfig()); got != "trip_planner" {
		t.Errorf("with neighbours the first tool is %s, want trip_planner (its earlier request is nearly the query)", got)
	}
}

// TestNeighboursNothingLearned: with nothing learned, or a query like no
// earlier request, the vote changes nothing.
func TestNeighboursNothingLearned(t *testing.T) {
	docs := []search.Doc{
		{Name: "read_file", Description: "Read a file from disk."},
		{Name: "get_weather", Description: "Weather forecast for a city."},
	}
	off := search.DefaultConfig()
	off.Neighbours = 0
	uses := []search.Use{{Query: "forecast for Oslo", Tool: "get_weather"}}
	for _, q := range []string{"read the file notes.txt", "weather in Paris"} {
		a, _ := search.NewLearned(docs, off, nil).Search(q, search.Options{})
		b, _ := search.NewLearned(docs, search.DefaultConfig(), nil).Search(q, search.Options{})
		if len(a) != len(b) || a[0] != b[0] {
			t.Errorf("%q: nothing learned, yet neighbours changed the ranking: %v vs %v", q, a, b)
		}
	}
	// "read the file" shares no word with the earlier request.
	a, _ := search.NewLearned(docs, off, uses).Search("read the file notes.txt", search.Options{})
	b, _ := search.NewLearned(docs, search.DefaultConfig(), uses).Search("read the file notes.txt", search.Options{})
	if len(a) != len(b) || a[0] != b[0] {
		t.Errorf("a query like no earlier request changed with neighbours: %v vs %v", a, b)
	}
}

// TestLearnedBuildPaths: a store big enough to be analysed beside the
// catalog (NewLearned) ranks exactly as the same uses taught one batch at
// a time to a built index (Index.Learn).
func TestLearnedBuildPaths(t *testing.T) {
	words := []string{"read", "write", "file", "weather", "city", "forecast", "send", "mail", "issue", "repo", "list", "search"}
	var docs []search.Doc
	for i := range 60 {
		docs = append(docs, search.Doc{
			Name:        fmt.Sprintf("tool_%s_%d", words[i%len(words)], i),
			Description: words[(i*5)%len(words)] + " " + words[(i*7+3)%len(words)],
			Server:      fmt.Sprintf("s%d", i%4),
		})
	}
	var uses []search.Use
	for i := range 10000 {
		q := words[i%len(words)] + " " + words[(i/len(words))%len(words)] + " " + words[(i*13)%len(words)]
		tool := docs[(i*31)%len(docs)].Name
		switch i % 97 {
		case 1:
			tool = " " + tool + "\t" // spaces around a name are not part of it
		case 2:
			q = "the of and" // stop words only: teaches nothing
		case 3:
			uses = append(uses, search.Use{Query: q, Tool: docs[(i*7)%len(docs)].Name}) // one search, two calls
		}
		uses = append(uses, search.Use{Query: q, Tool: tool})
	}
	built := search.NewLearned(docs, search.DefaultConfig(), uses)
	taught := search.New(docs)
	taught.Learn(uses[:5000]...)
	taught.Learn(uses[5000:]...)
	same := func(when string) {
		t.Helper()
		for _, q := range []string{"read file", "weather forecast city", "send mail", "list repo issue search"} {
			a, _ := built.Search(q, search.Options{Limit: 10})
			b, _ := taught.Search(q, search.Options{Limit: 10})
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("%s, %q: built %v\ntaught %v", when, q, a, b)
			}
		}
	}
	same("after the build")
	// Requests learned later are matched against those of the build: a
	// repeat is one request, whichever path learned the first.
	more := append(slices.Clone(uses[:300]), search.Use{Query: "read file weather", Tool: docs[0].Name})
	built.Learn(more...)
	taught.Learn(more...)
	same("after more uses")
}

// TestNeighbourVoteShared: a request that led to several tools (one search,
// several calls) votes once, shared among them; a request that led to one
// tool gives it the whole vote.
func TestNeighbourVoteShared(t *testing.T) {
	docs := []search.Doc{
		{Name: "tool_a", Description: "Utility."},
		{Name: "tool_b", Description: "Utility."},
		{Name: "tool_c", Description: "Utility."},
		{Name: "tool_d", Description: "Utility."},
	}
	uses := []search.Use{
		{Query: "convert the report to pdf", Tool: "tool_a"},
		{Query: "convert the report to pdf", Tool: "tool_b"},
		{Query: "convert the report to pdf", Tool: "tool_c"},
		{Query: "convert the quarterly report to pdf", Tool: "tool_d"},
	}
	cfg := search.DefaultConfig()
	cfg.LearnTrust = 0 // the vote alone, every learned tool counted in full
	hits, err := search.NewLearned(docs, cfg, uses).Search("convert the report to pdf", search.Options{Limit: 4})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %v %v", hits, err)
	}
	if hits[0].Name != "tool_d" {
		t.Errorf("first tool %s (%v), want tool_d: the three tools of one request share its vote", hits[0].Name, hits)
	}
}

// TestLearnThenForget: a pair taught to a live index ranks its tool first
// for a like request at once (counted in full: a nudge is
// TestOneUseNudges); Forget takes it back to the catalog alone.
func TestLearnThenForget(t *testing.T) {
	docs := []search.Doc{
		{Name: "get_forecast", Description: "Weather forecast for a place.", Server: "weather"},
		{Name: "search_posts", Description: "Search forum posts about any topic, umbrellas included.", Server: "forum"},
	}
	cfg := search.DefaultConfig()
	cfg.LearnTrust = 0
	ix := search.NewWithConfig(docs, cfg)
	const q = "will I need an umbrella in Oslo tomorrow"
	first := func() string {
		t.Helper()
		hits, err := ix.Search(q, search.Options{Limit: 2})
		if err != nil || len(hits) == 0 {
			t.Fatalf("search: %v %v", hits, err)
		}
		return hits[0].Name
	}
	before := first()
	if before != "search_posts" {
		t.Fatalf("the catalog alone ranks %s first: the test needs search_posts there", before)
	}
	ix.Learn(search.Use{Query: "do I need an umbrella in Bergen tomorrow", Tool: "get_forecast"})
	if got := first(); got != "get_forecast" {
		t.Errorf("after learning, %s is first, want get_forecast", got)
	}
	ix.Forget()
	if got := first(); got != before {
		t.Errorf("after Forget, %s is first, want %s as before learning", got, before)
	}
	if ix.Learned() != 0 {
		t.Errorf("Learned() = %d after Forget", ix.Learned())
	}
}
