package search_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tools/search/internal/bench"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// learnedUses is n uses of fixture's tools with requests made of varied
// words, a search that led to two tools now and then (two uses in a row
// with one request), undated and dated.
func fixtureUses(n int) []search.Use {
	words := strings.Fields(`show me the weather forecast for Paris tomorrow open a new GitHub issue
		about the failing build read config.yaml from disk take a screenshot of the page navigate to
		https://example.com list open pullRequests write notes into a file search the code for TODO
		créer un fichier 天气预报 HTTPServer getUserByID v2 2024`)
	var out []search.Use
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; len(out) < n; i++ {
		q := make([]string, 3+i%5)
		for k := range q {
			q[k] = words[(i*7+k*k*3+i/len(words))%len(words)]
		}
		u := search.Use{Query: strings.Join(q, " "), Tool: fixture[i%len(fixture)].Name}
		if i%3 > 0 {
			u.At = t0.Add(time.Duration(i) * time.Minute)
		}
		out = append(out, u)
		if i%4 == 0 {
			u.Tool = fixture[(i+3)%len(fixture)].Name
			out = append(out, u)
		}
	}
	return out
}

// TestAnalysedLearnsAsText: uses read analysed, as a store keeps them,
// build the index their text builds, hit for hit and score for score, one
// at a time and in bulk (a start's 100,000), and so do Learn's.
func TestAnalysedLearnsAsText(t *testing.T) {
	queries := []string{"weather in Paris", "open an issue", "screenshot", "read the config file", "天气", "user by id", "TODO in code"}
	stemmer := search.DefaultConfig().Stemmer
	for _, n := range []int{40, 9000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			text := fixtureUses(n)
			analysed, stored := bench.Analysed(text, stemmer)
			// Half of them analysed, half as text: a store with rows of an
			// earlier version.
			mixed := append(analysed[:len(analysed)/2:len(analysed)/2], text[len(text)/2:]...)
			want := search.NewLearned(fixture, search.DefaultConfig(), text)
			live := search.New(fixture)
			live.LearnAnalysed(stored, analysed...)
			for name, ix := range map[string]*search.Index{
				"analysed": search.NewLearnedAnalysed(fixture, search.DefaultConfig(), analysed, stored),
				"mixed":    search.NewLearnedAnalysed(fixture, search.DefaultConfig(), mixed, stored),
				"learned":  live,
			} {
				if ix.Learned() != want.Learned() {
					t.Errorf("%s: %d tools learned, text %d", name, ix.Learned(), want.Learned())
				}
				for _, q := range queries {
					a, _ := want.Search(q, search.Options{Limit: 9})
					b, _ := ix.Search(q, search.Options{Limit: 9})
					if fmt.Sprint(a) != fmt.Sprint(b) {
						t.Errorf("%s: %q\n got %v\nwant %v (from the text)", name, q, b, a)
					}
				}
			}
		})
	}
}

// TestAnalysedStale: an analysis of another version, or a malformed one,
// is never indexed: the use's text is, or nothing.
func TestAnalysedStale(t *testing.T) {
	stemmer := search.DefaultConfig().Stemmer
	text := fixtureUses(40)
	analysed, stored := bench.Analysed(text, stemmer)
	old := &search.Analysis{Version: stored.Version + "-old", Terms: stored.Terms}
	if ix := search.NewLearnedAnalysed(fixture, search.DefaultConfig(), analysed, old); ix.Learned() != 0 {
		t.Errorf("uses of another analysis version, without text: %d tools learned, want none", ix.Learned())
	}
	withText := make([]search.Use, len(text))
	for i := range text {
		withText[i] = analysed[i]
		withText[i].Query = text[i].Query
	}
	want := search.NewLearned(fixture, search.DefaultConfig(), text)
	ix := search.NewLearnedAnalysed(fixture, search.DefaultConfig(), withText, old)
	a, _ := want.Search("weather in Paris", search.Options{Limit: 9})
	b, _ := ix.Search("weather in Paris", search.Options{Limit: 9})
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("another version with the text: %v, want the text's %v", b, a)
	}
	// Numbers past the dictionary, a cut uvarint: that use learns nothing,
	// the others are learned.
	bad := []search.Use{
		{Tool: "forecast", Analysed: []byte{byte(len(stored.Terms))}},
		{Tool: "read_file", Analysed: []byte{0x80}},
		{Tool: "write_file", Analysed: []byte{0}}, // number 0 names no term
		{Tool: "get_weather", Analysed: analysed[0].Analysed},
	}
	if ix := search.NewLearnedAnalysed(fixture, search.DefaultConfig(), bad, stored); ix.Learned() != 1 {
		t.Errorf("malformed analyses: %d tools learned, want only get_weather", ix.Learned())
	}
}

// TestRequestTermsGolden: what RequestTerms gives for varied requests, and
// the AnalysisVersion it is under. A store keeps requests analysed under
// that version, so an analysis that changes without a new version would
// index stale terms: the test fails until analysisRevision is bumped.
func TestRequestTermsGolden(t *testing.T) {
	stemmer := search.DefaultConfig().Stemmer
	in, err := os.ReadFile(filepath.Join("testdata", "requestterms.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	fmt.Fprintf(&got, "version %s\n", search.AnalysisVersion(stemmer))
	for line := range strings.Lines(string(in)) {
		fmt.Fprintf(&got, "%q\n", search.RequestTerms(stemmer, strings.TrimSuffix(line, "\n")))
	}
	golden := filepath.Join("testdata", "requestterms.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() == string(want) {
		return
	}
	firstLine := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	if firstLine(got.String()) == firstLine(string(want)) {
		t.Fatalf("RequestTerms changed under the same AnalysisVersion: bump analysisRevision (learn.go), then go test -run RequestTermsGolden -update\n got %s\nwant %s", got.String(), want)
	}
	t.Fatalf("AnalysisVersion or RequestTerms changed: go test -run RequestTermsGolden -update\n got %s\nwant %s", got.String(), want)
}
