package tokenbench

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openairesponses"
	"github.com/agent-dev/agent/tools/tokens"
)

// TestHostedSearchContext measures what OpenAI's hosted tool search puts
// in the model's context on every request, with the catalog deferred in
// one namespace per server (name and description; members stay out until
// loaded): the real 282-tool catalog and a 5,000-tool one derived from it.
// Run with -v to see the figures.
func TestHostedSearchContext(t *testing.T) {
	all, err := LoadCatalog(filepath.Join("..", "..", "..", "shared", "catalogs", "ALL.json"))
	if err != nil {
		t.Skipf("needs ../shared/catalogs/ALL.json next to the repository (the shared test data): %v", err)
	}
	p := openairesponses.New(openairesponses.Options{})
	for _, n := range []int{282, 5000} {
		c := Generate("scaled", all.Tools, n)
		req := &agent.Request{Model: "gpt-5.4", Search: agent.SearchNative, Messages: []agent.Message{{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hi")}}}}
		for _, tl := range c.Tools {
			req.Deferred = append(req.Deferred, agent.ToolDef{Name: tl.Name, Description: tl.Description, Schema: tl.Schema, Server: tl.Server, ServerDescription: tl.ServerDescription})
		}
		body, _, err := p.Render(req)
		if err != nil {
			t.Fatal(err)
		}
		var b struct {
			Tools []map[string]json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			t.Fatal(err)
		}
		namespaces, largest := 0, 0
		var visible []map[string]json.RawMessage
		for _, tl := range b.Tools {
			var members []json.RawMessage
			_ = json.Unmarshal(tl["tools"], &members)
			if len(members) > 0 {
				namespaces++
				largest = max(largest, len(members))
			}
			v := map[string]json.RawMessage{}
			for k, x := range tl {
				if k != "tools" {
					v[k] = x
				}
			}
			visible = append(visible, v)
		}
		vb, _ := json.Marshal(visible)
		ctx := tokens.Count(string(vb))
		t.Logf("%d tools: %d namespaces (largest %d members), in context: %d o200k tokens (%d bytes) of tool definitions",
			n, namespaces, largest, ctx, len(vb))
		// Chunks of 8 described by name lists cost ~40k tokens at 5,000
		// tools (#15); a namespace per server, in words, a fraction.
		if limit := map[int]int{282: 1000, 5000: 15000}[n]; ctx > limit {
			t.Errorf("%d tools: %d tokens in context, over %d", n, ctx, limit)
		}
	}
}
