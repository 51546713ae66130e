package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestQueryCues(t *testing.T) {
	tests := []struct {
		q    string
		want string
	}{
		{"Generate a summary and save it as Markdown to /root/markdown/NCT04280705.md.", "file markdown write"},
		{"Read the sales data under /root/excel/sales.xlsx", "file excel spreadsheet"},
		{"write the report to ~/notes/cancer.md?", "file markdown write"},
		{"open ./build/out.log", "file log text"},
		{"What files are in my /root/music folder?", "file directory"},
		{"Extract the key points of https://www.youtube.com/watch?v=arj7oStGLkU", "url"},
		{"clone github.com/charmbracelet/crush", "url"},
		{"mail bob@example.com the invoice", "email"},
		{"Help me check train tickets from Beijing to Shanghai on next Wednesday.", "current date time"},
		{"Analyze the last 24h of BTC", "current date time"},
		{"homestays in Paris, I want to stay tomorrow", "current date time"},
		{"what happened in the past three days?", "current date time"},
		// Nothing implied: no value, no relative date.
		{"Show me today's trending topics", ""},
		{"save my work", ""},
		{"the last time I checked", ""},
		{"is amaz0n.com official?", "domain website"},
		{"Create a blog, e.g. a personal one, by 9 a.m.", ""},
		{"Build a Next.js app and save the notes", ""},
		{"edit .env and save it", "file environment write"},
		{"convert paper_list.bib to Word", "file bibliography"},
		{"compare report.md and notes.txt", "file markdown text"},
		// A command line to run: a program after "using", "run"... or
		// before a flag; an English word only when a command is said.
		{"check whether docker is installed using docker --version", "command execute terminal shell"},
		{"is docker running, please use docker ps to find out", "command execute terminal shell"},
		{"shut down with shutdown -s -t 0, the exact command", "command execute terminal shell"},
		{"say hi using the echo command", "command execute terminal shell"},
		{"open the calculator using the command called start calc", "command execute terminal shell"},
		{"what time is it, run echo %time%", "command execute terminal shell"},
		{"run git status in the repo", "command execute terminal shell"},
		{"list my docker containers", ""},
		{"find flights leaving after the date I gave using the date picker", ""},
		{"start a new project and kill the old branch", ""},
		{"deploy it with docker", ""},
		// Two currencies named: a conversion; one is a price.
		{"How many Canadian dollars can I get for 500 US dollars?", "currency"},
		{"what is 20000 JPY in EUR", "currency"},
		{"find a lawyer charging less than 400 dollars an hour", ""},
		{"convert 2 pounds to kilograms", ""},
	}
	for _, tt := range tests {
		got := strings.Join(readValues(tt.q).cues, " ")
		if got != tt.want {
			t.Errorf("cues of %q = %q, want %q", tt.q, got, tt.want)
		}
	}
}

func TestPathStems(t *testing.T) {
	tests := []struct{ in, want string }{
		{"save it to /root/markdown/NCT04280705.md.", "save it to NCT04280705"},
		{"diff /root/txt/log_today.txt and /root/txt/log_yesterday.txt", "diff log_today and log_yesterday"},
		{"What files are in my /root/music folder?", "What files are in my music folder?"},
		{"see https://example.com/a/b.html and github.com/o/r", "see https://example.com/a/b.html and github.com/o/r"},
		{"no paths here", "no paths here"},
		{"list /root/music/ and ~/Downloads/", "list music and Downloads"},
		{"read ./build/out.log, e.g. the errors", "read out e.g. the errors"},
	}
	for _, tt := range tests {
		if got := readValues(tt.in).text; got != tt.want {
			t.Errorf("text of %q = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// chainFixture: a request that gives a place name needs its coordinates
// first. The tool that makes them shares no word with the request; chain
// finds it because the tools the request matches require them.
func chainFixture() []Doc {
	schema := func(req ...string) json.RawMessage {
		props := map[string]any{}
		for _, r := range req {
			props[r] = map[string]string{"type": "number"}
		}
		b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": req})
		return b
	}
	return []Doc{
		{Name: "find_parking_facilities", Description: "Locate parking facilities near a specific location.", Server: "osm", Schema: schema("latitude", "longitude")},
		{Name: "find_schools_nearby", Description: "Locate schools near a specific location.", Server: "osm", Schema: schema("latitude", "longitude")},
		// Consumers: they need latitude too (one by a longer name).
		{Name: "reverse_geocode", Description: "Convert a latitude and longitude to an address.", Server: "osm", Schema: schema("latitude", "longitude")},
		{Name: "analyze_commute", Description: "Commute between two points given by latitude and longitude.", Server: "osm", Schema: schema("home_latitude", "home_longitude")},
		// The producer.
		{Name: "geocode_address", Description: "Convert an address or place name to geographic coordinates (latitude/longitude).", Server: "osm", Schema: schema("address")},
		// Mentions latitude, but on another server.
		{Name: "latitude_converter", Description: "Convert latitude between formats.", Server: "units", Schema: schema("value")},
		{Name: "park_ranger_contacts", Description: "Rangers of national parks and where to find them.", Server: "parks", Schema: schema("park")},
	}
}

// scoresOf searches q under cfg and returns each hit's score by name.
func scoresOf(t *testing.T, docs []Doc, cfg Config, q string) map[string]float64 {
	t.Helper()
	hits, err := NewWithConfig(docs, cfg).Search(q, Options{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, h := range hits {
		out[h.Name] = h.Score
	}
	return out
}

func TestChainLiftsProducerOnly(t *testing.T) {
	docs := chainFixture()
	q := "where can I park near the Forbidden City?"
	off := DefaultConfig()
	off.Chain = 0
	without, with := scoresOf(t, docs, off, q), scoresOf(t, docs, DefaultConfig(), q)
	if _, ok := without["geocode_address"]; ok {
		t.Fatalf("without chain geocode_address should not match at all: %v", without)
	}
	if with["geocode_address"] <= 0 {
		t.Errorf("chain did not lift the producer of latitude: %v", with)
	}
	// Consumers and a tool of another server are not producers.
	for _, not := range []string{"reverse_geocode", "analyze_commute", "latitude_converter"} {
		if with[not] != without[not] {
			t.Errorf("%s lifted (%.3f, without chain %.3f)", not, with[not], without[not])
		}
	}
}

// An input that more than two siblings mention ("data") names no producer.
func TestChainSkipsCommonInputs(t *testing.T) {
	docs := chainFixture()
	for _, n := range []string{"poi_export", "poi_stats", "poi_history"} {
		docs = append(docs, Doc{Name: n, Description: "Returns points with latitude and longitude.", Server: "osm", Schema: json.RawMessage(`{"type":"object"}`)})
	}
	q := "where can I park near the Forbidden City?"
	off := DefaultConfig()
	off.Chain = 0
	without, with := scoresOf(t, docs, off, q), scoresOf(t, docs, DefaultConfig(), q)
	for name, v := range with {
		if without[name] != v {
			t.Errorf("%s lifted (%.3f, without chain %.3f) though four tools make latitude", name, v, without[name])
		}
	}
}

// A request that names the input gives it, so nothing is lifted for it:
// the ranking is the same with chain on and off.
func TestChainSkipsGivenInputs(t *testing.T) {
	docs := []Doc{
		{Name: "get_tickets", Description: "Query train tickets.", Server: "rail", Schema: json.RawMessage(`{"type":"object","required":["date","station_code"]}`)},
		{Name: "station_lookup", Description: "Find the station code of a city.", Server: "rail", Schema: json.RawMessage(`{"type":"object","required":["city"]}`)},
		{Name: "calendar", Description: "Returns the date of today.", Server: "rail"},
	}
	q := "train tickets for station code BJP on date 2026-12-03"
	off := DefaultConfig()
	off.Chain = 0
	with, without := scoresOf(t, docs, DefaultConfig(), q), scoresOf(t, docs, off, q)
	if fmt.Sprint(with) != fmt.Sprint(without) {
		t.Errorf("chain changed the ranking of a request that gives every input:\n with    %v\n without %v", with, without)
	}
	// The same tools lift the producer when the request does not give
	// the station code.
	q = "train tickets from Beijing to Shanghai on date 2026-12-03"
	with, without = scoresOf(t, docs, DefaultConfig(), q), scoresOf(t, docs, off, q)
	if with["station_lookup"] <= without["station_lookup"] {
		t.Errorf("station_lookup not lifted for a request without a station code: with %v, without %v", with, without)
	}
}

// The step a request implies (writing the file it names) gets a place on the
// first page even though the rest of the request outscores it.
func TestImpliedStepOnFirstPage(t *testing.T) {
	var docs []Doc
	for _, n := range []string{"repositories", "developers", "languages", "topics", "stars", "forks"} {
		docs = append(docs, Doc{Name: "get_github_trending_" + n, Description: "Get trending " + n + " on GitHub, ranked by GitHub stars today.", Server: "github-trending"})
	}
	docs = append(docs,
		Doc{Name: "write_file", Description: "Create a new file or overwrite an existing one.", Server: "filesystem"},
		Doc{Name: "read_file", Description: "Read a file.", Server: "filesystem"},
	)
	// Other servers' tools, so that GitHub's words are rare and a file's
	// are common, as in a real catalog.
	for _, n := range []string{"upload", "download", "convert", "compress", "share", "scan", "print", "sign", "tag", "sync"} {
		docs = append(docs, Doc{Name: n + "_document", Description: "Take a file and " + n + " it: works on any file type.", Server: "docs"})
	}
	q := "Find the trending GitHub repositories and draft an intro for the top one in /root/markdown/github_trends.md"
	// Without the name prior, which lifts write_file on its own here (the
	// cue "write file" says its whole name), to show what the slot does.
	on := DefaultConfig()
	on.NamePrior = 0
	off := on
	off.StepSlot = 0
	for _, tt := range []struct {
		cfg  Config
		want bool
	}{{off, false}, {on, true}} {
		hits, err := NewWithConfig(docs, tt.cfg).Search(q, Options{Limit: DefaultSearchLimit})
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(hits, func(h Hit) bool { return h.Name == "write_file" })
		if got != tt.want {
			t.Errorf("StepSlot %d: write_file on the first page = %v, want %v: %v", tt.cfg.StepSlot, got, tt.want, hits)
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score {
				t.Errorf("scores not in order: %v", hits)
			}
		}
	}
}

func FuzzQueryAnalysis(f *testing.F) {
	for _, s := range []string{"save to /root/x.md", "/", "//", "~/", "a/b/c/", ".", "./x", "http://", "@.", "获取 新闻 /tmp/报告.md",
		"next", "amaz0n.com/", "x.\xff", "where can I park near the Forbidden City?", "train tickets tomorrow"} {
		f.Add(s)
	}
	docs := append(chainFixture(),
		Doc{Name: "write_file", Description: "Write a file.", Server: "fs", Schema: json.RawMessage(`{"required":["path"]}`)},
		Doc{Name: "read_file", Description: "Read a file.", Server: "fs", Schema: json.RawMessage(`[1,2]`)},
		Doc{Name: "get-news", Description: "获取新闻", Server: "cn", Schema: json.RawMessage(`{"required":7}`)},
		Doc{Name: "get-rank", Description: "获取热榜", Server: "cn", Schema: json.RawMessage(`{"required":["type"]}`)},
		Doc{Name: "current_time", Description: "Current date and time.", Server: "time"})
	ix := New(docs)
	n := 0
	f.Fuzz(func(t *testing.T, q string) {
		readValues(q)
		glosses(q, nil)
		// Every few queries a server changes, as an MCP server's list does.
		if n++; n%7 == 0 {
			ix.ReplaceServer("fs", docs[len(docs)-5 : len(docs)-3][:1+n%2])
		}
		hits, err := ix.Search(q, Options{Limit: 10})
		if err != nil {
			if !errors.Is(err, ErrEmptyQuery) && !strings.Contains(err.Error(), "regex") &&
				!strings.Contains(err.Error(), "pattern") && !strings.Contains(err.Error(), "no tool named") {
				t.Fatalf("Search(%q): %v", q, err)
			}
			return
		}
		for i, h := range hits {
			if math.IsNaN(h.Score) || math.IsInf(h.Score, 0) {
				t.Fatalf("Search(%q): score %v", q, h.Score)
			}
			if i > 0 && h.Score > hits[i-1].Score {
				t.Fatalf("Search(%q): scores out of order: %v", q, hits)
			}
		}
	})
}
