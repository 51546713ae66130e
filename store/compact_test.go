package store

import (
	"reflect"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// A compaction made through the agent loop is stored with the session; a
// resume restores it and sends exactly the compacted form the live session
// sent, while the store and the export keep every message.
func TestCompactionIsStoredAndResumed(t *testing.T) {
	ctx := t.Context()
	d, _ := openTest(t)
	ss := create(t, d, "/w")
	appendAll(t, ss, conversation()...)
	p := &scriptProvider{steps: []agent.Message{{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("The user asked for the weather in Paris.")}}}}
	hist, err := ss.LoadRepaired(ctx)
	if err != nil {
		t.Fatal(err)
	}
	live := agent.New(agent.Config{Provider: p, Model: "m", Store: ss})
	live.Reset(hist)
	c, err := live.Compact(ctx, "weather", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Seq != 1 || c.Boundary != len(hist) || !reflect.DeepEqual(c.Found, agent.Discovered(hist)) {
		t.Fatalf("compaction %+v", c)
	}
	want := live.BuildRequest().Messages
	if err := ss.Close(); err != nil {
		t.Fatal(err)
	}

	re, err := d.OpenSession(ctx, ss.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	hist2, err := re.LoadRepaired(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist2) != len(hist) {
		t.Fatalf("resumed history has %d messages, want all %d", len(hist2), len(hist))
	}
	last, err := re.LastCompaction(ctx)
	if err != nil || last == nil {
		t.Fatalf("last compaction %v, %v", last, err)
	}
	if !reflect.DeepEqual(*last, *c) {
		t.Errorf("stored compaction\n%+v\nwant\n%+v", *last, *c)
	}
	resumed := agent.New(agent.Config{Provider: p, Model: "m", Store: re})
	resumed.Reset(hist2)
	resumed.SetCompaction(last)
	if got := resumed.BuildRequest().Messages; !reflect.DeepEqual(got, want) {
		t.Errorf("resumed sends\n%+v\nwant what the live session sent\n%+v", got, want)
	}

	e, err := d.Export(ctx, ss.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Messages) != len(hist) || len(e.Compactions) != 1 || e.Compactions[0].Summary != c.Summary {
		t.Errorf("export: %d messages, compactions %+v", len(e.Messages), e.Compactions)
	}
	if len(e.Requests) != 1 {
		t.Errorf("export: %d requests, want the summary request recorded", len(e.Requests))
	}
}
