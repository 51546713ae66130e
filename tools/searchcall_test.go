package tools

import "testing"

// One rendering of a search call, in tool_search's own syntax: what the
// adapters send back as the call's query, what the transcript and the TUI
// show, what the store records with each discovery.
func TestSearchCallText(t *testing.T) {
	for _, tt := range []struct {
		c    SearchCall
		want string
	}{
		{SearchCall{Query: "weather forecast"}, "weather forecast"},
		{SearchCall{Pattern: "^gh__.*pr"}, "/^gh__.*pr/"},
		{SearchCall{Names: []string{"gh__pr", "fs__read"}}, "select:gh__pr,fs__read"},
		{SearchCall{Query: "q", Pattern: "p", Names: []string{"n"}}, "q"},
		{SearchCall{}, ""},
	} {
		if got := tt.c.Text(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.c, got, tt.want)
		}
	}
}
