package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/demo/internal/catalogdef"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/search"
)

// keywordSearcher stands in for the real engine: it ranks deferred tools
// by words shared with the query.
type keywordSearcher struct{ set *tools.Set }

var _ agent.Searcher = keywordSearcher{}

func (k keywordSearcher) Search(_ context.Context, c agent.SearchCall) ([]string, error) {
	type hit struct {
		name string
		n    int
	}
	var hits []hit
	for _, t := range k.set.Deferred() {
		n := score(agent.ToolDef{Name: t.Name, Description: t.Description}, c.Query)
		if n > 0 {
			hits = append(hits, hit{t.Name, n})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].n > hits[j].n })
	var out []string
	for i := 0; i < len(hits) && i < 5; i++ {
		out = append(out, hits[i].name)
	}
	return out, nil
}

func newSession(t *testing.T) *agent.Session { return newSessionWith(t, false) }

// newSessionWith builds a demo session; real picks the project's search
// engine (tools/search), as `agent --demo` wires it, instead of the fake.
func newSessionWith(t *testing.T, real bool) *agent.Session {
	t.Helper()
	kit, err := New(Options{WordDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	set := tools.NewSet()
	if err := set.Add(nil, kit.Tools...); err != nil {
		t.Fatal(err)
	}
	var searcher agent.Searcher = keywordSearcher{set}
	if real {
		searcher = search.NewSearcher(set)
	}
	return agent.New(agent.Config{ID: "demo-test", Provider: kit.Provider, Model: kit.Model, System: kit.System,
		Tools: set, Search: agent.SearchNative, Searcher: searcher})
}

func TestScriptedTurns(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		Prompts[0]: "weather_",
		Prompts[1]: "finance_currency_convert",
		Prompts[2]: "maps_distance",
		Prompts[3]: "tickets_list_tickets",
		Prompts[4]: "utils_calculate",
	}
	for _, real := range []bool{false, true} {
		for prompt, tool := range want {
			s := newSessionWith(t, real)
			var searched, called bool
			var result string
			err := s.Run(t.Context(), prompt, func(e agent.Event) {
				switch e.Type {
				case agent.EventSearchStarted:
					searched = e.Search.Where == agent.WhereClient
				case agent.EventToolFinished:
					called = strings.HasPrefix(e.Tool.Name, tool)
					result = e.Tool.Result
					if e.Tool.IsError || !e.Tool.Discovered {
						t.Errorf("%q: call %s error=%v discovered=%v: %s", prompt, e.Tool.Name, e.Tool.IsError, e.Tool.Discovered, e.Tool.Result)
					}
				}
			})
			if err != nil {
				t.Fatalf("%q: %v", prompt, err)
			}
			if !searched || !called {
				t.Fatalf("%q (real engine %v): searched=%v called %s=%v", prompt, real, searched, tool, called)
			}
			h := s.Messages()
			final := h[len(h)-1]
			if final.Role != agent.RoleAssistant || !strings.Contains(final.Parts[0].Text, "Scripted demo model") {
				t.Fatalf("%q: no Markdown answer at the end: %+v", prompt, final)
			}
			t.Logf("%q → %s: %s", prompt, tool, strings.Join(strings.Fields(result), " "))
		}
	}
}

func TestComputedResults(t *testing.T) {
	t.Parallel()
	tests := []struct{ prompt, contains string }{
		{"Convert 250 EUR to USD", `"result": 270`},
		{"How far is Paris from Berlin?", `"distance_km": 877`},
		{"Calculate (17 + 25) * 3", `"result": 126`},
	}
	for _, tt := range tests {
		s := newSession(t)
		var result string
		if err := s.Run(t.Context(), tt.prompt, func(e agent.Event) {
			if e.Type == agent.EventToolFinished {
				result = e.Tool.Result
			}
		}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(result, tt.contains) {
			t.Errorf("%q: result %s lacks %s", tt.prompt, result, tt.contains)
		}
	}
}

func TestCancelKeepsPartialText(t *testing.T) {
	t.Parallel()
	kit, _ := New(Options{})
	ctx, cancel := context.WithCancel(t.Context())
	n := 0
	resp, err := kit.Provider.Send(ctx, &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("weather")}}},
		Deferred: []agent.ToolDef{{Name: "x"}}}, func(agent.StreamEvent) {
		if n++; n == 2 {
			cancel()
		}
	})
	if err == nil || resp == nil || !resp.Message.Interrupted || len(resp.Message.Parts) != 1 {
		t.Fatalf("want an interrupted partial message and an error, got %+v, %v", resp, err)
	}
}

func TestCatalog(t *testing.T) {
	t.Parallel()
	cat, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	if len(cat) < 200 {
		t.Fatalf("catalog has %d tools, want a few hundred", len(cat))
	}
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	seen := map[string]bool{}
	kit, _ := New(Options{WordDelay: -1})
	for i, c := range cat {
		if !valid.MatchString(c.Name) || seen[c.Name] {
			t.Errorf("bad or duplicate name %q", c.Name)
		}
		seen[c.Name] = true
		var s map[string]any
		if err := json.Unmarshal(c.InputSchema, &s); err != nil || s["type"] != "object" {
			t.Errorf("%s: schema %s", c.Name, c.InputSchema)
		}
		// Every tool runs on the arguments the scripted model would send.
		args := argsFor(agent.ToolDef{Name: c.Name, Schema: c.InputSchema}, "weather in Paris for 3 days")
		if _, err := kit.Tools[i].Exec(t.Context(), args); err != nil {
			t.Errorf("%s(%s): %v", c.Name, args, err)
		}
	}
}

// TestCatalogIsGenerated keeps catalog.json equal to its definition; run
// `go generate ./demo` after changing catalogdef.
func TestCatalogIsGenerated(t *testing.T) {
	t.Parallel()
	want, err := catalogdef.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(catalogJSON, want) {
		t.Fatal("catalog.json is stale: run go generate ./demo")
	}
}

func TestNoFittingTool(t *testing.T) {
	t.Parallel()
	s := newSessionWith(t, true)
	called := false
	if err := s.Run(t.Context(), "hello there", func(e agent.Event) {
		called = called || e.Type == agent.EventToolStarted
	}); err != nil {
		t.Fatal(err)
	}
	h := s.Messages()
	if last := h[len(h)-1].Parts[0].Text; called || !strings.Contains(last, "Try one of") {
		t.Fatalf("called=%v, answer %q", called, last)
	}
}

func TestSearchOffCallsDirectly(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	_ = s.Override(func(turn *agent.TurnContext) { turn.Search = agent.SearchOff })
	var searched bool
	var called string
	if err := s.Run(t.Context(), "Convert 250 EUR to USD", func(e agent.Event) {
		searched = searched || e.Type == agent.EventSearchStarted
		if e.Type == agent.EventToolFinished {
			called = e.Tool.Name
		}
	}); err != nil {
		t.Fatal(err)
	}
	if searched || called != "finance_currency_convert" {
		t.Fatalf("search off: searched=%v called=%q", searched, called)
	}
}
