package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/store"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/search"
)

// replay is a provider that answers each request with the next message.
type replay struct{ msgs []agent.Message }

func (r *replay) Name() string             { return "replay" }
func (r *replay) API() string              { return "test" }
func (r *replay) NativeSearch(string) bool { return false }
func (r *replay) Send(ctx context.Context, req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
	if len(r.msgs) == 0 {
		return nil, errors.New("replay exhausted")
	}
	m := r.msgs[0]
	r.msgs = r.msgs[1:]
	return &agent.Response{Message: m}, nil
}

// learnCatalog is a catalog where a request about an umbrella finds
// insurance and events before the weather.
func learnCatalog() []tools.Tool {
	exec := func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		return tools.Result{Text: "ok"}, nil
	}
	mk := func(name, server, desc string) tools.Tool {
		return tools.Tool{Name: name, Server: server, Description: desc, Deferred: true, Exec: exec, Schema: json.RawMessage(`{"type":"object"}`)}
	}
	return []tools.Tool{
		mk("umbrella_insurance_quote", "insure", "Quote an umbrella insurance policy for a home in a city."),
		mk("city_events", "events", "Events in a city: concerts, markets, exhibitions, tomorrow or later."),
		mk("get_forecast", "weather", "Weather forecast for a city: rain, wind and temperature by day."),
		mk("get_air_quality", "weather", "Air quality index of a city."),
		mk("book_taxi", "taxi", "Book a taxi in a city."),
	}
}

// session runs one scripted conversation over a fresh tool set, wired the
// way buildRuntime wires it: the store's learned uses in the searcher, and
// the store learner recording this session.
func learnSession(t *testing.T, db *store.DB, g *Globals, script []agent.Message) (*agent.Session, *search.Searcher) {
	t.Helper()
	set := tools.NewSet()
	if err := set.Add(nil, learnCatalog()...); err != nil {
		t.Fatal(err)
	}
	searcher := search.NewSearcher(set)
	var s *agent.Session
	s = agent.New(agent.Config{ID: "s" + t.Name(), Provider: &replay{script}, Model: "m", Tools: set, Search: agent.SearchClient, Searcher: searcher,
		Learner: app.NewLearner(t.Context(), app.Settings{Config: g.Config, NoLearn: g.NoLearn}, db, searcher, func() string { return s.ID() })})
	return s, searcher
}

func rankOf(t *testing.T, ix *search.Index, query, tool string) int {
	t.Helper()
	hits, err := ix.Search(query, search.Options{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	return slices.IndexFunc(hits, func(h search.Hit) bool { return h.Name == tool })
}

// A session's call of a tool its search found is stored with the user's
// request, and the next session ranks that tool higher for a similar
// request: one use nudges it up (search.Config.LearnTrust).
func TestLearningFromUseAcrossSessions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agent.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	g := &Globals{}
	const later = "do I need an umbrella in Lyon on Sunday"

	// Before any use: the forecast is not among the first ten for an
	// umbrella (no tool says the word but the insurance).
	_, fresh := learnSession(t, db, g, nil)
	before := rankOf(t, fresh.Index(), later, "get_forecast")
	if before >= 0 {
		t.Fatalf("get_forecast ranks %d for %q: the test needs a request the catalog alone does not answer", before+1, later)
	}

	// Session 1: the model searches, then calls the forecast it found.
	s1, _ := learnSession(t, db, g, []agent.Message{
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.SearchCallPart(agent.SearchCall{ID: "s1", Where: agent.WhereClient, Query: "raincoat or umbrella: weather in Paris tomorrow"})}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: "c1", Name: "get_forecast", Input: json.RawMessage(`{}`)})}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Take an umbrella.")}},
	})
	if err := s1.Run(ctx, "do I need an umbrella in Paris tomorrow?", func(agent.Event) {}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(s1.Discovered(), "get_forecast") {
		t.Fatalf("session 1's search did not find get_forecast: %v", s1.Discovered())
	}
	db.Close()

	// The pair is in the database file.
	db, err = store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	uses, err := db.LearnedUses(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(uses) != 1 || uses[0].Query != "do I need an umbrella in Paris tomorrow?" || uses[0].Tool != "get_forecast" {
		t.Fatalf("stored uses = %+v", uses)
	}
	if stats, err := db.ToolStats(ctx, ""); err != nil || !slices.ContainsFunc(stats, func(s store.ToolStat) bool {
		return s.Tool == "get_forecast" && s.Server == "weather" && s.Called == 1
	}) {
		t.Fatalf("tool stats = %+v, %v: want get_forecast of weather called once", stats, err)
	}

	// Session 2 ranks the forecast for a similar request, below the tool
	// the request names (one use is a nudge).
	_, next := learnSession(t, db, g, nil)
	if after := rankOf(t, next.Index(), later, "get_forecast"); after < 0 {
		t.Errorf("after a session used get_forecast for an umbrella, it is not among the first ten")
	}

	// --no-learn: nothing learned is used, and nothing recorded.
	off := &Globals{Flags: app.Flags{NoLearn: true}}
	s3, plain := learnSession(t, db, off, []agent.Message{
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.SearchCallPart(agent.SearchCall{ID: "s1", Where: agent.WhereClient, Query: "air quality"})}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: "c1", Name: "get_air_quality", Input: json.RawMessage(`{}`)})}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("ok")}},
	})
	if s3.TurnContext().Learner != nil {
		t.Error("--no-learn still set a learner")
	}
	if err := s3.Run(ctx, "air", func(agent.Event) {}); err != nil {
		t.Fatal(err)
	}
	if r := rankOf(t, plain.Index(), later, "get_forecast"); r != before {
		t.Errorf("--no-learn ranks get_forecast %d, want it unranked as with nothing learned", r+1)
	}
	if uses, _ := db.LearnedUses(ctx, "", 0); len(uses) != 1 {
		t.Errorf("--no-learn recorded a use: %+v", uses)
	}
	f := false
	if (app.Settings{Config: config.Config{Learn: &f}}).Learning() {
		t.Error(`"learn": false in the config does not turn learning off`)
	}
}

func TestToolsSearchHistory(t *testing.T) {
	dir := t.TempDir()
	catalog := filepath.Join(dir, "tools.jsonl")
	var lines []string
	for _, tl := range learnCatalog() {
		b, _ := json.Marshal(map[string]string{"name": tl.Name, "server": tl.Server, "description": tl.Description})
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(catalog, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	hist := filepath.Join(dir, "history.jsonl")
	if err := os.WriteFile(hist, []byte(`{"query": "raincoat or umbrella: weather in Paris tomorrow", "tool": "get_forecast"}`+"\n"+
		`{"query": "should I take a raincoat to work", "tool": "get_forecast"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(history string) string {
		var out strings.Builder
		o := toolsSearchOpts{limit: 1, asJSON: true, catalog: catalog, mode: "auto", history: history}
		if err := runToolsSearch(t.Context(), &Globals{}, o, []string{"a raincoat in Lyon on Sunday?"}, &out); err != nil {
			t.Fatal(err)
		}
		var hits []search.Hit
		if err := json.Unmarshal([]byte(out.String()), &hits); err != nil || len(hits) > 1 {
			t.Fatalf("output %q: %v", out.String(), err)
		}
		if len(hits) == 0 {
			return ""
		}
		return hits[0].Name
	}
	if got := run(""); got == "get_forecast" {
		t.Fatalf("get_forecast first without history: the test needs a request the catalog alone does not answer")
	}
	if got := run(hist); got != "get_forecast" {
		t.Errorf("with --history the first tool is %s, want get_forecast", got)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"query": "x"}`), 0o644)
	o := toolsSearchOpts{limit: 1, catalog: catalog, mode: "auto", history: bad}
	var ue *UsageError
	if err := runToolsSearch(t.Context(), &Globals{}, o, []string{"x"}, &strings.Builder{}); !errors.As(err, &ue) {
		t.Errorf("a history line without a tool: %v, want a usage error", err)
	}
}
