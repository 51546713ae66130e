package tokenbench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/tokens"
)

// catalogDir is ../shared/catalogs from the module root.
var catalogDir = filepath.Join("..", "..", "..", "shared", "catalogs")

// needCatalog skips a test when the shared catalogs are not beside the
// repository, saying what enables it.
func needCatalog(t *testing.T, name string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(catalogDir, name)); err != nil {
		t.Skipf("needs ../shared/catalogs/%s (the shared data beside the repository root, as in CI): put shared/ at ../shared to run this", name)
	}
}

// TestAdaptersKeepThePrefixAndSave runs the benchmark on a real catalog and
// a small generated one, and holds every adapter to the rules deferral
// exists for: the tools array and everything before the new messages are
// the same bytes on every request (cache markers aside), deferred
// definitions stay out of the tools in context, and deferral saves tokens.
func TestAdaptersKeepThePrefixAndSave(t *testing.T) {
	needCatalog(t, "server-github.json")
	real, err := LoadCatalog(filepath.Join(catalogDir, "server-github.json"))
	if err != nil {
		t.Fatal(err)
	}
	cats := []Catalog{real, Generate("generated-60", real.Tools, 60)}
	for i := range cats {
		cat := &cats[i]
		info, results, err := runCatalog(context.Background(), cat, Options{Adapters: Adapters, Modes: Modes})
		if err != nil {
			t.Fatalf("%s: %v", cat.Name, err)
		}
		if len(results) != len(Adapters)*len(Modes) {
			t.Fatalf("%s: %d results", cat.Name, len(results))
		}
		if len(info.Targets) != Discoveries {
			t.Errorf("%s: %d targets", cat.Name, len(info.Targets))
		}
		// The directory of deferred servers (tools.Directory) rides in
		// the search tool's description or the system prompt: it is what
		// tells the model what to search for, and is allowed on top.
		dir := tokens.Count(tools.Directory(cat.Tools))
		for _, r := range results {
			name := cat.Name + " " + r.Adapter + " " + modeLabel(r)
			wantReqs := Turns + Discoveries // a discovery adds a request
			if r.Resolved == agent.SearchClient {
				wantReqs += Discoveries // the client search is a round trip of its own
			}
			if len(r.Requests) != wantReqs {
				t.Errorf("%s: %d requests, want %d", name, len(r.Requests), wantReqs)
			}
			if r.StableMarkers != r.Compared || r.Compared != len(r.Requests)-1 {
				t.Errorf("%s: prefix stable on %d of %d requests: %s", name, r.StableMarkers, r.Compared, r.Unstable)
			}
			if r.Adapter != Anthropic && r.StableStrict != r.Compared {
				t.Errorf("%s: only %d of %d requests byte-identical before the new messages: %s", name, r.StableStrict, r.Compared, r.Unstable)
			}
			for i, q := range r.Requests[1:] {
				if q.FirstDiff < 0 || q.NewAt <= 0 {
					t.Errorf("%s request %d: first diff %d, new message at %d", name, i+2, q.FirstDiff, q.NewAt)
				}
			}
			if r.Mode == agent.SearchOff {
				if r.T1ToolsContextTokens != r.T1ToolsSentTokens || r.SavedTokens != 0 {
					t.Errorf("%s: off keeps every definition in context: %+v", name, r)
				}
				continue
			}
			if r.Adapter == Chat && r.Resolved != agent.SearchClient {
				t.Errorf("%s: Chat Completions has no native search, resolved %s", name, r.Resolved)
			}
			// Nothing is active, so the tools in context are the search
			// tool(s) plus what OpenAI shows of deferred functions.
			if search := r.T1ToolsContextTokens - r.T1VisibleDeferred; search <= 0 || search > 300+dir {
				t.Errorf("%s: %d tokens of non-deferred tool definitions in context, want the search tool(s) alone (and the directory, %d)", name, search, dir)
			}
			if r.SavedTokens <= 0 || r.ShareOfEager >= 1 {
				t.Errorf("%s: deferral saved %d tokens (%.1f%% of eager)", name, r.SavedTokens, 100*r.ShareOfEager)
			}
			if r.Adapter != Responses && r.ShareOfEager*(1-float64(dir)/float64(r.T1ContextTokens)) > 0.10 {
				t.Errorf("%s: turn-1 context %.1f%% of eager", name, 100*r.ShareOfEager)
			}
			if r.Estimate.Saved <= 0 {
				t.Errorf("%s: status bar estimate %+v", name, r.Estimate)
			}
		}
	}
}

func TestBodyParsing(t *testing.T) {
	raw := []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a ] } \" , [ {"}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"tool_reference","tool_name":"b"}]}]}],` +
		`"tools":[{"name":"a","input_schema":{"type":"object"}},{"name":"b","description":"Bee.","input_schema":{"type":"object","properties":{"q":{"type":"string"}}},"defer_loading":true},` +
		`{"type":"function","name":"c","description":"See.","parameters":{},"defer_loading":true}],"stream":true,"n":12}`)
	b, err := parseBody(raw, "messages")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.keys, ","); got != "model,messages,tools,stream,n" {
		t.Errorf("keys %s", got)
	}
	if len(b.msgs) != 2 || len(b.tools) != 3 {
		t.Fatalf("%d messages, %d tools", len(b.msgs), len(b.tools))
	}
	if got := string(b.tools[0].of(raw)); got != `{"name":"a","input_schema":{"type":"object"}}` {
		t.Errorf("tools[0] = %s", got)
	}
	if got := string(b.fields["n"].of(raw)); got != "12" {
		t.Errorf("n = %s", got)
	}
	cb := b.contextBody()
	if !json.Valid(cb) || strings.Contains(string(cb), `"b"`) && strings.Contains(string(cb), "Bee.") || strings.Contains(string(cb), "See.") {
		t.Errorf("context body keeps deferred definitions: %s", cb)
	}
	if refs := b.references(); len(refs) != 1 || refs[0] != "b" {
		t.Errorf("references %v", refs)
	}
	if n := b.referencedTokens([]string{"b"}); n <= 0 {
		t.Errorf("referenced tokens %d", n)
	}
	// Only the OpenAI-style deferred function leaves its name and
	// description visible.
	if b.visible <= 0 || b.visible > 10 {
		t.Errorf("visible %d", b.visible)
	}
}

func TestCompareFindsTheByte(t *testing.T) {
	prev, _ := parseBody([]byte(`{"tools":[{"name":"a"}],"messages":[{"c":"hi","cache_control":{"type":"ephemeral"}}]}`), "messages")
	same, _ := parseBody([]byte(`{"tools":[{"name":"a"}],"messages":[{"c":"hi"},{"c":"new"}]}`), "messages")
	var r Request
	compare(prev, same, &r)
	if r.Stable || !r.StableIgnoringMarkers || r.NewAt != strings.Index(string(same.raw), `{"c":"new"}`) {
		t.Errorf("marker move: %+v", r)
	}
	moved, _ := parseBody([]byte(`{"tools":[{"name":"b"}],"messages":[{"c":"hi"},{"c":"new"}]}`), "messages")
	r = Request{}
	compare(prev, moved, &r)
	if r.StableIgnoringMarkers || !strings.Contains(r.Why, `"tools" differs at byte 19`) {
		t.Errorf("tools change: %+v", r)
	}
}

func TestGenerateIsUniqueAndSearchable(t *testing.T) {
	needCatalog(t, "ALL.json")
	all, err := LoadCatalog(filepath.Join(catalogDir, "ALL.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Tools) != 282 {
		t.Fatalf("ALL has %d tools", len(all.Tools))
	}
	g := Generate("g", all.Tools, 700)
	seen := map[string]bool{}
	for _, tl := range g.Tools {
		if seen[tl.Name] || len(tl.Name) > 64 {
			t.Fatalf("bad or repeated name %q", tl.Name)
		}
		seen[tl.Name] = true
	}
	for _, tg := range g.Targets() {
		if !strings.HasPrefix(tg.Query, "zq") && len(tg.Query) < 4 {
			t.Errorf("target %s: query %q", tg.Name, tg.Query)
		}
	}
}
