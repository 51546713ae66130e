package gemini

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
)

// ToolLimit counts the function declarations render writes, for every
// search form; provider tools are tools of their own, not declarations.
func TestToolLimitCountsTheDeclarations(t *testing.T) {
	t.Parallel()
	many := make([]agent.ToolDef, 520)
	for i := range many {
		many[i] = agent.ToolDef{Name: fmt.Sprintf("t%03d", i), Description: "d", Schema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)}
	}
	search := agent.ProviderTool{Raw: json.RawMessage(`{"googleSearch":{}}`)}
	p := New(Options{APIKey: "k"})
	for _, tc := range []struct {
		name string
		req  agent.Request
		want int
	}{
		{"active only", agent.Request{Tools: many[:5]}, 5},
		{"client search", agent.Request{Tools: many[:5], Deferred: many[5:], Search: agent.SearchClient}, 7},
		{"search off", agent.Request{Tools: many[:5], Deferred: many[5:], Search: agent.SearchOff}, 520},
		{"provider tools", agent.Request{Tools: many[:5], ProviderTools: []agent.ProviderTool{search}}, 5},
	} {
		req := tc.req
		req.Model = "gemini-2.5-flash"
		n, max := p.ToolLimit(&req)
		r, err := p.render(&req)
		if err != nil {
			t.Fatal(err)
		}
		if n != tc.want || n != r.declared || max != geminitest.MaxDeclarations {
			t.Errorf("%s: ToolLimit %d of %d, render declared %d, want %d of %d", tc.name, n, max, r.declared, tc.want, geminitest.MaxDeclarations)
		}
	}
}
