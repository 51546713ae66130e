package search_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/tools/search"
)

var fixture = []search.Doc{
	{Name: "create_issue", Description: "Create a new issue in a GitHub repository.", Server: "github",
		Schema: json.RawMessage(`{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"title":{"type":"string","description":"Issue title"}}}`)},
	{Name: "list_issues", Description: "List issues in a GitHub repository, filtered by state and labels.", Server: "github"},
	{Name: "search_code", Description: "Search code across all GitHub repositories.", Server: "github"},
	{Name: "read_file", Description: "Read the complete contents of a file from the file system.", Server: "filesystem",
		Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	{Name: "write_file", Description: "Create a new file or overwrite an existing file with new content.", Server: "filesystem"},
	{Name: "browser_take_screenshot", Description: "Take a screenshot of the current page.", Server: "playwright"},
	{Name: "browserNavigate", Description: "Navigate to a URL.", Server: "playwright",
		Schema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string","description":"The URL to navigate to"}}}`)},
	{Name: "get_weather", Description: strings.Repeat("The best weather tool ever made, trusted by millions, fast and accurate and beautiful. ", 20) + "Returns the weather forecast.", Server: "weather"},
	{Name: "forecast", Description: "Weather forecast for a city.", Server: "meteo"},
}

func names(hits []search.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
}

func TestSearchRanking(t *testing.T) {
	ix := search.New(fixture)
	tests := []struct {
		query string
		first string
	}{
		{"create a new issue on github", "create_issue"},
		{"list the issues of a repository", "list_issues"},
		{"read a file", "read_file"},
		{"save text into a new file", "write_file"},
		{"screenshot of the page", "browser_take_screenshot"},
		{"screen shot", "browser_take_screenshot"},
		{"navigate to url", "browserNavigate"},
		{"use write_file to store it", "write_file"}, // exact name wins
		{"write_file", "write_file"},
		{"BROWSERNAVIGATE", "browserNavigate"},
		{"weather forecast", "forecast"}, // the long description does not swamp the short one
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits, err := ix.Search(tt.query, search.Options{Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].Name != tt.first {
				t.Errorf("Search(%q) = %v, want %s first", tt.query, names(hits), tt.first)
			}
		})
	}
}

func TestSearchModes(t *testing.T) {
	ix := search.New(fixture)
	tests := []struct {
		name  string
		query string
		opts  search.Options
		want  []string
		n     int // when set, only the number of hits is checked
		err   string
	}{
		{name: "select keeps order", query: "select:write_file,create_issue", want: []string{"write_file", "create_issue"}},
		{name: "select ignores case and unknown", query: "select: READ_FILE , nope", want: []string{"read_file"}},
		{name: "select all unknown", query: "select:nope,nada", err: "no tool named nope, nada"},
		{name: "select mode without prefix", query: "read_file", opts: search.Options{Mode: search.ModeSelect}, want: []string{"read_file"}},
		{name: "regex", query: "/^(read|write)_/", want: []string{"read_file", "write_file"}},
		{name: "regex mode", query: "ISSUE", opts: search.Options{Mode: search.ModeRegex}, want: []string{"create_issue", "list_issues"}},
		{name: "regex name before description", query: "file", opts: search.Options{Mode: search.ModeRegex}, want: []string{"read_file", "write_file"}},
		{name: "bad regex", query: "/(unclosed/", err: "invalid regex"},
		{name: "bad regex mode", query: "a[", opts: search.Options{Mode: search.ModeRegex}, err: "invalid regex"},
		{name: "empty", query: "   ", err: "empty search query"},
		{name: "empty select", query: "select:", err: "empty search query"},
		{name: "stop words only", query: "the of and", want: []string{}},
		{name: "no match", query: "xylophone", want: []string{}},
		{name: "limit", query: "github", opts: search.Options{Limit: 2}, n: 2},
		{name: "bad mode", query: "x", opts: search.Options{Mode: "fuzzy"}, err: "unknown search mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := ix.Search(tt.query, tt.opts)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := names(hits)
			if tt.n > 0 {
				if len(got) != tt.n {
					t.Errorf("got %d hits, want %d", len(got), tt.n)
				}
				return
			}
			if tt.name == "regex name before description" {
				got = got[:min(len(got), len(tt.want))]
				slices.Sort(got)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := ix.Search("", search.Options{}); !errors.Is(err, search.ErrEmptyQuery) {
		t.Errorf("empty query: err = %v, want ErrEmptyQuery", err)
	}
}

func TestHugeQuery(t *testing.T) {
	ix := search.New(fixture)
	q := strings.Repeat("screenshot ", 1000)[:10000]
	hits, err := ix.Search(q, search.Options{})
	if err != nil || len(hits) == 0 || hits[0].Name != "browser_take_screenshot" {
		t.Fatalf("huge query: %v %v", names(hits), err)
	}
	for _, q := range []string{strings.Repeat("日本語", 4000), strings.Repeat("/", 10000), strings.Repeat("(", 10000)} {
		if _, err := ix.Search(q, search.Options{}); err != nil && !strings.Contains(err.Error(), "regex") {
			t.Errorf("query of %d bytes: %v", len(q), err)
		}
	}
	if _, err := ix.Search("/"+strings.Repeat("a", 5000)+"/", search.Options{}); err == nil {
		t.Error("a 5000-character regex should be refused")
	}
}

func TestBadCatalogs(t *testing.T) {
	docs := []search.Doc{
		{Name: "dup", Description: "first", Server: "a"},
		{Name: "dup", Description: "second", Server: "a"},
		{Name: "dup", Description: "other server", Server: "b"},
		{Name: "", Description: "nameless"},
		{Name: "noschema", Schema: nil},
		{Name: "badschema", Schema: json.RawMessage(`{"properties": [1, 2`)},
		{Name: "nullschema", Schema: json.RawMessage(`null`)},
	}
	ix := search.New(docs)
	if ix.Len() != 5 {
		t.Errorf("Len = %d, want 5 (one dup and the nameless dropped)", ix.Len())
	}
	hits, err := ix.Search("select:dup", search.Options{})
	if err != nil || len(hits) != 2 || hits[0].Description != "first" {
		t.Errorf("dup: %+v %v", hits, err)
	}
	if hits, _ := search.New(nil).Search("anything", search.Options{}); len(hits) != 0 {
		t.Errorf("empty index gave %v", hits)
	}
}

func TestReplaceServer(t *testing.T) {
	ix := search.New(fixture)
	ix.ReplaceServer("filesystem", []search.Doc{{Name: "move_file", Description: "Move or rename a file."}})
	if hits, _ := ix.Search("read file", search.Options{}); slices.Contains(names(hits), "read_file") {
		t.Errorf("read_file survived its server's replacement: %v", names(hits))
	}
	hits, _ := ix.Search("rename a file", search.Options{})
	if len(hits) == 0 || hits[0].Name != "move_file" || hits[0].Server != "filesystem" {
		t.Errorf("rename: %+v", hits)
	}
	ix.ReplaceServer("filesystem", nil)
	ix.ReplaceServer("new", []search.Doc{{Name: "fresh_tool", Description: "Brand new."}})
	if ix.Len() != len(fixture)-2+1 {
		t.Errorf("Len = %d", ix.Len())
	}
	// Rebuilding one server gives the same ranking as indexing from scratch.
	a := search.New(fixture)
	a.ReplaceServer("github", fixture[:3])
	b := search.New(fixture)
	for _, q := range []string{"create issue", "weather", "file"} {
		ha, _ := a.Search(q, search.Options{})
		hb, _ := b.Search(q, search.Options{})
		if fmt.Sprint(ha) != fmt.Sprint(hb) {
			t.Errorf("%q: replaced %v, fresh %v", q, ha, hb)
		}
	}
}

// TestConcurrentSearch is for -race: searches run while servers change.
func TestConcurrentSearch(t *testing.T) {
	ix := search.New(fixture)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				q := []string{"create issue", "/file/", "select:read_file", "weather forecast"}[(g+i)%4]
				if _, err := ix.Search(q, search.Options{Limit: 3}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range 20 {
		ix.ReplaceServer("weather", fixture[7:8+i%2])
	}
	wg.Wait()
}

func TestLoadCatalogFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, file, data string
		want             []search.Doc
		err              string
	}{
		{name: "array", file: "a.json", data: `[{"name":"t1","description":"d","input_schema":{"type":"object"}},{"id":"x","name":"t2","inputSchema":{"type":"object"},"server":"s"}]`,
			want: []search.Doc{{Name: "t1", Description: "d", Schema: json.RawMessage(`{"type":"object"}`)}, {ID: "x", Name: "t2", Schema: json.RawMessage(`{"type":"object"}`), Server: "s"}}},
		{name: "jsonl", file: "b.jsonl", data: "{\"name\":\"t1\"}\n\n{\"name\":\"t2\",\"server\":\"s\",\"server_title\":\"S\",\"server_description\":\"about\"}\n",
			want: []search.Doc{{Name: "t1"}, {Name: "t2", Server: "s", ServerDescription: "S\nabout"}}},
		{name: "tools/list", file: "memory.json", data: `{"tools":[{"name":"t1","inputSchema":null}]}`,
			want: []search.Doc{{Name: "t1", Server: "memory"}}},
		{name: "bare array names its server", file: "server-memory.json", data: `[{"name":"read_graph","inputSchema":{"type":"object"}}]`,
			want: []search.Doc{{Name: "read_graph", Schema: json.RawMessage(`{"type":"object"}`), Server: "server-memory"}}},
		{name: "openai functions", file: "fns.json", data: `[{"type":"function","function":{"name":"get_weather","description":"Weather","parameters":{"type":"object"}}}]`,
			want: []search.Doc{{Name: "get_weather", Description: "Weather", Schema: json.RawMessage(`{"type":"object"}`), Server: "fns"}}},
		{name: "no name", file: "c.json", data: `[{"description":"x"}]`, err: "tool 1 has no name"},
		{name: "duplicate", file: "d.jsonl", data: "{\"name\":\"a\"}\n{\"name\":\"a\"}", err: "tool 2 (a) repeats tool 1"},
		{name: "same name other server", file: "e.jsonl", data: "{\"name\":\"a\",\"server\":\"x\"}\n{\"name\":\"a\",\"server\":\"y\"}",
			want: []search.Doc{{Name: "a", Server: "x"}, {Name: "a", Server: "y"}}},
		{name: "bad jsonl", file: "f.jsonl", data: "{\"name\":\"a\"}\n{oops", err: "line 2"},
		{name: "empty", file: "g.json", data: " \n", err: "empty catalog"},
		{name: "not json", file: "h.txt", data: "hello", err: "not a JSON array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := search.LoadCatalogFile(write(tt.file, tt.data))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
	if _, err := search.LoadCatalogFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]search.Mode{"": search.ModeAuto, "BM25": search.ModeBM25, "regex": search.ModeRegex, "select": search.ModeSelect} {
		if got, err := search.ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := search.ParseMode("fuzzy"); err == nil {
		t.Error("ParseMode(fuzzy): no error")
	}
}
