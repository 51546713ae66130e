package search_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tools/search/internal/bench"
)

// prCatalog has the tools a pull-request request meets on a GitHub server:
// a list tool whose state parameter is "open", which the plain word
// "open" matches, and a read tool that "open" as in "open a file" names.
var prCatalog = []search.Doc{
	{Name: "create_pull_request", Description: "Create a new pull request in a GitHub repository.", Server: "github"},
	{Name: "pull_request_read", Description: "Get information on a specific pull request in a GitHub repository.", Server: "github"},
	{Name: "list_pull_requests", Description: "List pull requests in a GitHub repository.", Server: "github",
		Schema: json.RawMessage(`{"type":"object","properties":{"state":{"type":"string","enum":["open","closed","all"],"description":"Filter by state"}}}`)},
	{Name: "update_pull_request", Description: "Update an existing pull request in a GitHub repository.", Server: "github"},
	{Name: "create_issue", Description: "Create a new issue in a GitHub repository.", Server: "github"},
	{Name: "delete_file", Description: "Delete a file from a GitHub repository.", Server: "github"},
	{Name: "get_file_contents", Description: "Get the contents of a file or directory from a GitHub repository.", Server: "github"},
	{Name: "browser_close", Description: "Close the page.", Server: "playwright"},
	{Name: "browser_navigate", Description: "Navigate to a URL.", Server: "playwright"},
	{Name: "read_file", Description: "Read the complete contents of a file from the file system.", Server: "filesystem"},
}

func TestParaphrases(t *testing.T) {
	ix := search.New(prCatalog)
	tests := []struct{ query, first string }{
		{"open a pull request", "create_pull_request"},
		{"raise a PR for this fix", "create_pull_request"},
		{"file a ticket about the crash", "create_issue"},
		{"wipe the file notes.txt from the repo", "delete_file"},
		{"erase a file from the repo", "delete_file"},
		{"shut the browser", "browser_close"},
		{"change the title of my PR", "update_pull_request"},
		{"pull up the contents of README.md in the repo", "get_file_contents"},
		{"open the file /etc/hosts", "read_file"}, // "open" with a file keeps its sense
		{"crée une pull request", "create_pull_request"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits, err := ix.Search(tt.query, search.Options{Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].Name != tt.first {
				t.Errorf("%q ranks %v first, want %s", tt.query, names(hits), tt.first)
			}
		})
	}
}

// TestOpenPullRequestSharedCatalogs is the README's example over the 282
// real tools of ../shared/catalogs.
func TestOpenPullRequestSharedCatalogs(t *testing.T) {
	docs := sharedCatalog(t)
	hits, err := search.New(docs).Search("open a pull request", search.Options{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Name != "create_pull_request" {
		t.Errorf("open a pull request ranks %v first, want create_pull_request", names(hits))
	}
}

// sharedCatalog loads ../shared/catalogs/ALL.json, or skips saying what
// enables the test.
func sharedCatalog(t *testing.T) []search.Doc {
	t.Helper()
	shared, err := bench.SharedDir()
	if err != nil {
		t.Skipf("shared catalogs not found (../shared next to the module root enables this test): %v", err)
	}
	docs, err := search.LoadCatalogFile(filepath.Join(shared, "catalogs", "ALL.json"))
	if err != nil {
		t.Skipf("no ../shared/catalogs/ALL.json: %v", err)
	}
	return docs
}
