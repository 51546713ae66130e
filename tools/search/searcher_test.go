package search_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tools/search/internal/bench"
)

func toolSet(t *testing.T) *tools.Set {
	t.Helper()
	set := tools.NewSet()
	var ts []tools.Tool
	for _, d := range fixture {
		ts = append(ts, tools.Tool{Name: d.Name, Description: d.Description, Schema: d.Schema, Server: d.Server})
	}
	if err := set.Add([]tools.Option{tools.Defer(true)}, ts...); err != nil {
		t.Fatal(err)
	}
	if err := set.Add(nil, tools.Tool{Name: "active_tool", Description: "Read files, always loaded."}); err != nil {
		t.Fatal(err)
	}
	return set
}

func TestSearcher(t *testing.T) {
	set := toolSet(t)
	s := search.NewSearcher(set)
	ctx := t.Context()
	tests := []struct {
		name string
		call tools.SearchCall
		want []string
		n    int
		err  string
	}{
		{name: "query", call: tools.SearchCall{Query: "read a file"}, want: []string{"read_file"}},
		{name: "default limit", call: tools.SearchCall{Query: "file github issue weather page url code"}, n: search.DefaultSearchLimit},
		{name: "limit capped", call: tools.SearchCall{Query: "file github issue weather page url code", Limit: 1000}, n: 9},
		{name: "names", call: tools.SearchCall{Names: []string{"write_file", "forecast"}}, want: []string{"write_file", "forecast"}},
		{name: "pattern", call: tools.SearchCall{Pattern: "^browser"}, want: []string{"browserNavigate", "browser_take_screenshot"}},
		{name: "select in query", call: tools.SearchCall{Query: "select:forecast"}, want: []string{"forecast"}},
		{name: "active tools are not searched", call: tools.SearchCall{Names: []string{"active_tool"}}, err: "no tool named active_tool"},
		{name: "bad pattern", call: tools.SearchCall{Pattern: "("}, err: "invalid regex"},
		{name: "empty", call: tools.SearchCall{}, err: "empty search query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Search(ctx, tt.call)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != nil && !slices.Equal(got[:min(len(got), len(tt.want))], tt.want) {
				t.Errorf("got %q, want %q first", got, tt.want)
			}
			if tt.n != 0 && len(got) != tt.n {
				t.Errorf("got %d tools, want %d", len(got), tt.n)
			}
		})
	}
}

func TestSearcherFollowsSet(t *testing.T) {
	set := toolSet(t)
	s := search.NewSearcher(set)
	ctx := context.Background()
	first := s.Index()
	if got, _ := s.Search(ctx, tools.SearchCall{Query: "rename file"}); slices.Contains(got, "move_file") {
		t.Fatal("move_file found before it exists")
	}
	if s.Index() != first {
		t.Error("index rebuilt without a change")
	}
	if err := set.ReplaceServer("filesystem", []tools.Option{tools.Defer(true)}, tools.Tool{Name: "move_file", Description: "Move or rename a file.", Server: "filesystem"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(ctx, tools.SearchCall{Query: "rename file"})
	if err != nil || len(got) == 0 || got[0] != "move_file" {
		t.Errorf("after replace: %q %v", got, err)
	}
	if s.Index() != first {
		t.Error("an incremental change should update the index in place")
	}
	set.SetDeferred("forecast", false)
	if got, _ := s.Search(ctx, tools.SearchCall{Query: "weather forecast"}); slices.Contains(got, "forecast") {
		t.Errorf("forecast is active now but still searched: %q", got)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Search(cctx, tools.SearchCall{Query: "x"}); err == nil {
		t.Error("cancelled context: no error")
	}
}

// TestSearcherLearnFrom: stored uses loaded in the background are in the
// first index, however late the load finishes, given as text or analysed
// as a store keeps them.
func TestSearcherLearnFrom(t *testing.T) {
	text := []search.Use{{Query: "what will the sky do in Oslo", Tool: fixture[0].Name}}
	analysed, stored := bench.Analysed(text, search.DefaultConfig().Stemmer)
	for _, tc := range []struct {
		name   string
		uses   []search.Use
		stored *search.Analysis
	}{
		{"text", text, nil},
		{"analysed", analysed, stored},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := search.NewSearcher(toolSet(t))
			release := make(chan struct{})
			s.LearnFrom(func() ([]search.Use, *search.Analysis) {
				<-release
				return tc.uses, tc.stored
			})
			go close(release) // the load finishes whenever it finishes
			ix := s.Index()
			if n := ix.Learned(); n != 1 {
				t.Errorf("the first index learned %d tools, want 1: it was built before the stored uses arrived", n)
			}
			s.WaitLearned() // returns at once now
		})
	}
}
