package openaichat

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
)

// ToolLimit counts what render writes: the tools array's length, for
// every search form, with provider tools, and the limit of the preset.
func TestToolLimitCountsTheRenderedArray(t *testing.T) {
	t.Parallel()
	many := make([]agent.ToolDef, 130)
	for i := range many {
		many[i] = agent.ToolDef{Name: fmt.Sprintf("t%03d", i), Description: "d", Schema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)}
	}
	rawTool := agent.ProviderTool{Raw: json.RawMessage(`{"type":"function","function":{"name":"hosted"}}`)}
	for _, tc := range []struct {
		name   string
		preset string
		req    agent.Request
		want   int
	}{
		{"active only", "openai", agent.Request{Tools: many[:5]}, 5},
		{"client search", "openai", agent.Request{Tools: many[:5], Deferred: many[5:], Search: agent.SearchClient}, 7},
		{"search off", "openai", agent.Request{Tools: many, Search: agent.SearchOff}, 130},
		{"provider tools", "openai", agent.Request{Tools: many[:5], ProviderTools: []agent.ProviderTool{rawTool, {Alias: "web_search"}}}, 6},
		{"over the limit", "openai", agent.Request{Tools: many}, 130},
		{"gemini's endpoint", "gemini", agent.Request{Tools: many}, 130},
		{"no known limit", "ollama", agent.Request{Tools: many}, 130},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := FromPreset(tc.preset, Options{APIKey: "k"}, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			req := tc.req
			req.Model = "gpt-4.1"
			n, max := p.ToolLimit(&req)
			r, err := p.render(&req)
			if err != nil {
				t.Fatal(err)
			}
			var arr []json.RawMessage
			if r.tools != nil {
				if err := json.Unmarshal(r.tools, &arr); err != nil {
					t.Fatal(err)
				}
			}
			if n != tc.want || n != len(arr) {
				t.Errorf("ToolLimit counts %d, render wrote %d, want %d", n, len(arr), tc.want)
			}
			wantMax := map[string]int{"openai": chattest.MaxTools, "gemini": 512, "ollama": 0}[tc.preset]
			if max != wantMax {
				t.Errorf("limit %d, want %d", max, wantMax)
			}
		})
	}
}
