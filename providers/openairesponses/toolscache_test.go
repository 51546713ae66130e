package openairesponses

import (
	"bytes"
	"encoding/json"
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
