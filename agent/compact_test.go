package agent_test

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// usageAnswer answers with text and reports a prompt of input tokens.
func usageAnswer(text string, input int) func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error) {
	return func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
		return &agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart(text)}},
			Usage: agent.Usage{InputTokens: input, OutputTokens: 5}}, nil
	}
}

func TestApplyKeepsFoundToolsAsOnePair(t *testing.T) {
	t.Parallel()
	hist := []agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("one")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("a")}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("two")}},
	}
	tests := []struct {
		name string
		c    *agent.Compaction
		want []string // role:first part type per message
	}{
		{"none", nil, []string{"user:text", "assistant:text", "user:text"}},
		{"no tools found", &agent.Compaction{Seq: 1, Boundary: 2, Summary: "s"}, []string{"user:text", "user:text"}},
		{"tools found", &agent.Compaction{Seq: 3, Boundary: 2, Summary: "s", Found: []string{"x", "y"}},
			[]string{"user:text", "assistant:search_call", "user:search_result", "user:text"}},
		{"boundary past the history is ignored", &agent.Compaction{Seq: 1, Boundary: 9, Summary: "s"}, []string{"user:text", "assistant:text", "user:text"}},
	}
	for _, tt := range tests {
		got := tt.c.Apply(hist)
		var kinds []string
		for _, m := range got {
			kinds = append(kinds, string(m.Role)+":"+string(m.Parts[0].Type))
		}
		if strings.Join(kinds, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: %v, want %v", tt.name, kinds, tt.want)
		}
		if tt.c != nil && len(tt.c.Found) > 0 {
			call, res := got[1].Parts[0].SearchCall, got[2].Parts[0].SearchResult
			if call.ID != "call_compact_3" || res.CallID != call.ID || call.Where != agent.WhereClient ||
				strings.Join(call.Names, ",") != "x,y" || strings.Join(res.Tools, ",") != "x,y" {
				t.Errorf("%s: pair %+v / %+v", tt.name, call, res)
			}
		}
	}
}

func TestAutoCompactBeforeARequestOverTheShare(t *testing.T) {
	t.Parallel()
	p := &scripted{}
	s := agent.New(agent.Config{Provider: p, Model: "m", AutoCompact: 0.5, ContextWindow: 1000})
	// Turn 1: the answer reports a 600-token prompt, over 0.5 × 1000.
	p.turns = append(p.turns, usageAnswer("first answer", 600))
	if err := s.Run(t.Context(), "first question", func(agent.Event) {}); err != nil {
		t.Fatal(err)
	}
	// Turn 2: the summary request, then the turn's own request.
	p.turns = append(p.turns, usageAnswer("SUMMARY", 600), usageAnswer("second answer", 50))
	var evs []agent.Event
	if err := s.Run(t.Context(), "second question", func(e agent.Event) { evs = append(evs, e) }); err != nil {
		t.Fatal(err)
	}
	if len(p.reqs) != 3 {
		t.Fatalf("%d requests, want 3 (turn, summary, turn)", len(p.reqs))
	}
	sum := p.reqs[1].Messages
	if last := sum[len(sum)-1]; last.Role != agent.RoleUser || !strings.Contains(last.Text(), "Summarise the conversation") {
		t.Errorf("summary request ends with %+v", last)
	}
	if len(sum) != 3 { // first question, first answer, the summary prompt
		t.Errorf("summary request has %d messages, want the turns before this one and the prompt", len(sum))
	}
	sent := p.reqs[2].Messages
	if len(sent) != 2 || !strings.Contains(sent[0].Text(), "SUMMARY") || sent[1].Text() != "second question" {
		t.Errorf("after compaction sent %+v, want the summary then the turn in progress", sent)
	}
	if n := len(s.Messages()); n != 4 {
		t.Errorf("history has %d messages, want all 4", n)
	}
	var compacted *agent.Compaction
	for _, e := range evs {
		if e.Type == agent.EventCompacted {
			compacted = e.Compaction
		}
	}
	if compacted == nil || !compacted.Auto || compacted.Boundary != 2 {
		t.Errorf("compacted event %+v, want an automatic compaction at message 2", compacted)
	}
	if u := s.Usage(); u.InputTokens != 1250 {
		t.Errorf("session input tokens %d, want the summary request counted (1250)", u.InputTokens)
	}
}

func TestAutoCompactOffAndNothingToCompact(t *testing.T) {
	t.Parallel()
	// Off: no summary request however big the prompt.
	p := &scripted{}
	s := agent.New(agent.Config{Provider: p, Model: "m", AutoCompact: 0, ContextWindow: 1000})
	p.turns = append(p.turns, usageAnswer("a", 5000), usageAnswer("b", 5000))
	for _, q := range []string{"q1", "q2"} {
		if err := s.Run(t.Context(), q, func(agent.Event) {}); err != nil {
			t.Fatal(err)
		}
	}
	if len(p.reqs) != 2 {
		t.Errorf("%d requests with auto_compact off, want 2", len(p.reqs))
	}

	// The first turn alone is over the share: nothing earlier to compact,
	// one warning, and the request still goes.
	p2 := &scripted{}
	s2 := agent.New(agent.Config{Provider: p2, Model: "m", AutoCompact: 0.5, ContextWindow: 10})
	p2.turns = append(p2.turns, usageAnswer("a", 50))
	var warnings []string
	if err := s2.Run(t.Context(), strings.Repeat("long question ", 20), func(e agent.Event) {
		if e.Type == agent.EventWarning {
			warnings = append(warnings, e.Text)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "nothing earlier to compact") {
		t.Errorf("warnings %q", warnings)
	}
	if _, err := s2.Compact(t.Context(), "", nil); err == nil {
		t.Error("manual compaction with the summary request failing: want an error")
	}
}

func TestCompactAsksAgainWhenTheModelCallsATool(t *testing.T) {
	t.Parallel()
	p := &scripted{}
	s := agent.New(agent.Config{Provider: p, Model: "m"})
	s.Reset([]agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("q")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("a")}},
	})
	p.turns = append(p.turns, answer(call("c1", "lookup", `{}`)), usageAnswer("the summary", 10))
	c, err := s.Compact(t.Context(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Summary != "the summary" || len(p.reqs) != 2 || !strings.Contains(p.reqs[1].Messages[2].Text(), "Do not call any tool now") {
		t.Errorf("compaction %+v after %d requests", c, len(p.reqs))
	}
	if n := len(s.Messages()); n != 2 {
		t.Errorf("history has %d messages: the summary requests must not add any", n)
	}
	if c.Usage.InputTokens != 20 {
		t.Errorf("usage %+v, want both summary requests counted", c.Usage)
	}
}
