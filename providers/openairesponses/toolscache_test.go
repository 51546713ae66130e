package openairesponses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// The plan and tools array are made once per catalog version: the bytes
// are those of a fresh rendering, and the same version reuses them.
func TestToolsRenderedOncePerVersion(t *testing.T) {
	cal := agent.ToolDef{Name: "cal__add", Description: "Add an event <b>&</b>", Schema: json.RawMessage(`{"type":"object"}`), Server: "cal"}
	for _, mode := range []agent.SearchMode{agent.SearchNative, agent.SearchClient, agent.SearchOff} {
		p := New(Options{APIKey: "k"})
		req := &agent.Request{Model: "gpt-5.4", System: "Be brief.", Tools: []agent.ToolDef{readFile}, Deferred: []agent.ToolDef{cal},
			Messages: []agent.Message{user(agent.TextPart("hi"))}, Search: mode, ToolsVersion: 42}
		got, _, err := p.Render(req)
		if err != nil {
			t.Fatal(err)
		}
		plain := *req
		plain.ToolsVersion = 0
		fresh, _, err := New(Options{APIKey: "k"}).Render(&plain)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, fresh) {
			t.Fatalf("%s: cached rendering differs:\n%s\n%s", mode, got, fresh)
		}
		changed := *req
		// The active tool changes too: with client search no deferred
		// definition is in the array.
		changed.Tools = []agent.ToolDef{{Name: readFile.Name, Description: "CHANGED", Schema: readFile.Schema}}
		changed.Deferred = []agent.ToolDef{{Name: cal.Name, Description: "CHANGED", Schema: cal.Schema, Server: "cal"}}
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

// Past the wire budget native search resolves to the client form, which
// sends no deferred definition: the request's size stops depending on the
// catalog's.
func TestWireBudgetPicksClientSearch(t *testing.T) {
	var deferred []agent.ToolDef
	for i := range 200 {
		deferred = append(deferred, agent.ToolDef{Name: fmt.Sprintf("cal__add_%d", i), Description: "Add an event to the calendar",
			Schema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}}}`), Server: "cal"})
	}
	for _, c := range []struct {
		budget int
		want   agent.SearchMode
	}{{0, agent.SearchNative}, {1 << 20, agent.SearchNative}, {1000, agent.SearchClient}} {
		req := &agent.Request{Model: "gpt-5.4", Tools: []agent.ToolDef{readFile}, Deferred: deferred,
			Messages: []agent.Message{user(agent.TextPart("hi"))}, Search: agent.SearchNative, WireBudget: c.budget}
		b, mode, err := New(Options{APIKey: "k"}).Render(req)
		if err != nil {
			t.Fatal(err)
		}
		if mode != c.want {
			t.Errorf("budget %d: mode %s, want %s", c.budget, mode, c.want)
		}
		hasDefs := bytes.Contains(b, []byte("cal__add_7"))
		if hasDefs != (c.want == agent.SearchNative) || (c.want == agent.SearchClient && (!bytes.Contains(b, []byte(`"execution":"client"`)) || len(b) > 4096)) {
			t.Errorf("budget %d: %d bytes, definitions sent %v: %.300s", c.budget, len(b), hasDefs, b)
		}
	}
}
