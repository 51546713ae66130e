package anthropic

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// The tools array is rendered once per catalog version: the bytes are
// those of a fresh rendering, and the same version reuses them.
func TestToolsRenderedOncePerVersion(t *testing.T) {
	p := New(Options{APIKey: "k"})
	cal := agent.ToolDef{Name: "cal__add", Description: "Add an event <b>&</b>", Schema: json.RawMessage(`{"type":"object"}`), Server: "cal"}
	for _, mode := range []agent.SearchMode{agent.SearchNative, agent.SearchClient, agent.SearchOff} {
		req := &agent.Request{Model: nativeModel, System: "Be brief.", Tools: []agent.ToolDef{readFile}, Deferred: []agent.ToolDef{cal},
			Messages: []agent.Message{user("hi")}, Search: mode, ToolsVersion: 42,
			ProviderTools: []agent.ProviderTool{{Alias: "web_search"}}}
		got, _, err := p.Render(req)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := buildRequest(req, agent.ResolveSearch(p, req))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, fresh.body) {
			t.Fatalf("%s: cached rendering differs:\n%s\n%s", mode, got, fresh.body)
		}
		h1, _ := p.ToolsHash(req)
		if h1 != fresh.toolsHash {
			t.Fatalf("%s: hash %s, fresh %s", mode, h1, fresh.toolsHash)
		}
		// The same version means the same lists: the array is not rendered
		// again (a changed description under it shows the cached bytes).
		changed := *req
		changed.Deferred = []agent.ToolDef{{Name: cal.Name, Description: "CHANGED", Schema: cal.Schema}}
		again, _, _ := p.Render(&changed)
		if bytes.Contains(again, []byte("CHANGED")) {
			t.Fatalf("%s: the array was rendered again for the same version", mode)
		}
		changed.ToolsVersion = 43
		if again, _, _ := p.Render(&changed); !bytes.Contains(again, []byte("CHANGED")) {
			t.Fatalf("%s: a new version kept the old array", mode)
		}
	}
}
