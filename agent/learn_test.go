package agent_test

import (
	"context"
	"sync"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools"
)

type learnLog struct {
	mu   sync.Mutex
	uses []agent.ToolUse
}

func (l *learnLog) Learn(_ context.Context, u agent.ToolUse) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.uses = append(l.uses, u)
}

// A call of a tool a word search found is learned with the user's request,
// not the search's words (the model's, which a server's text may have
// put there), once however often it is called; a call of a tool no search
// found, and tools a regex or a name list found, are not learned.
func TestLearnerSeesSearchThenCall(t *testing.T) {
	set := tools.NewSet()
	if err := set.Add(nil, echoTool("active", false, nil), echoTool("hidden", true, nil), echoTool("other", true, nil)); err != nil {
		t.Fatal(err)
	}
	p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
		answer(agent.SearchCallPart(agent.SearchCall{ID: "s1", Where: agent.WhereClient, Query: "find the hidden one"}),
			agent.SearchCallPart(agent.SearchCall{ID: "s2", Where: agent.WhereClient, Pattern: "oth.*"})),
		answer(call("c1", "active", `{"x":1}`), call("c2", "hidden", `{"x":2}`), call("c3", "other", `{"x":3}`)),
		answer(call("c4", "hidden", `{"x":4}`)),
		answer(agent.TextPart("done")),
	}}
	log := &learnLog{}
	searcher := searchFunc(func(c agent.SearchCall) []string {
		if c.Pattern != "" {
			return []string{"other"}
		}
		return []string{"hidden"}
	})
	s := agent.New(agent.Config{Provider: p, Model: "m", Tools: set, Search: agent.SearchClient, Searcher: searcher, Learner: log})
	const request = "use the hidden tool on x"
	if _, err := collect(t, s, request); err != nil {
		t.Fatal(err)
	}
	if len(log.uses) != 2 {
		t.Fatalf("learned %+v, want the search's find and the call of hidden", log.uses)
	}
	found, called := log.uses[0], log.uses[1]
	if found.Called || found.Query != "find the hidden one" || found.Where != agent.WhereClient || len(found.Tools) != 1 || found.Tools[0].Name != "hidden" {
		t.Errorf("found = %+v", found)
	}
	if !called.Called || called.Query != request || len(called.Tools) != 1 || called.Tools[0].Name != "hidden" {
		t.Errorf("called = %+v", called)
	}
}

type searchFunc func(agent.SearchCall) []string

func (f searchFunc) Search(_ context.Context, c agent.SearchCall) ([]string, error) { return f(c), nil }
