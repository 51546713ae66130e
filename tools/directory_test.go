package tools

import (
	"strings"
	"testing"
)

func TestDirectory(t *testing.T) {
	ts := []Tool{
		{Name: "gh__create_issue", Orig: "create_issue", Server: "gh", ServerDescription: "GitHub: issues, pull requests and code.\nMore lines."},
		{Name: "gh__get_file", Orig: "get_file", Server: "gh", ServerDescription: "GitHub: issues, pull requests and code.\nMore lines."},
		{Name: "weather__forecast", Server: "weather"},
		{Name: "read", Description: "built in"},
		{Name: "cn__news", Orig: "news", Server: "cn", ServerDescription: strings.Repeat("获取新闻", 40)},
	}
	got := Directory(ts)
	want := "Servers whose tools tool search finds:\n" +
		"- cn (1 tool): " + clip(strings.Repeat("获取新闻", 40), MaxDescriptionTokens) + "\n" +
		"- gh (2 tools): GitHub: issues, pull requests and code.\n" +
		"- weather (1 tool): tools for forecast"
	if got != want {
		t.Errorf("Directory =\n%s\nwant\n%s", got, want)
	}
	// The order of the tools does not change the bytes.
	rev := append([]Tool(nil), ts...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	if Directory(rev) != got {
		t.Error("the directory depends on the order of the tools")
	}
	if cn := Servers(ts)[0].Description; len([]rune(cn)) > MaxDescriptionTokens+1 || !strings.HasSuffix(cn, "…") {
		t.Errorf("a long Chinese description is not cut to about %d tokens: %q", MaxDescriptionTokens, cn)
	}
	if Directory([]Tool{{Name: "read"}}) != "" {
		t.Error("a directory of tools without servers is not empty")
	}
	long := clip(strings.Repeat("word ", 60), MaxDescriptionTokens)
	if len(long) > 4*MaxDescriptionTokens+3 || strings.HasSuffix(long, " …") {
		t.Errorf("clip = %q", long)
	}
	var gh []Tool
	for _, n := range []string{"get_issue", "list_issues", "create_pull_request", "merge_pull_request", "getFileContents", "search_code"} {
		gh = append(gh, Tool{Name: "gh__" + n, Server: "gh"})
	}
	if d := Servers(gh)[0].Description; d != "tools for issue, pull, request, code, content, file" {
		t.Errorf("summary from names = %q", d)
	}
	if d := Servers([]Tool{{Name: "x", Server: "s"}, {Name: "get", Server: "s"}})[0].Description; d != "tools such as get, x" {
		t.Errorf("summary of names without words = %q", d)
	}
}
