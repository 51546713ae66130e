package agent_test

import (
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools"
)

// #27: the reasoning that streamed is kept with the assistant message (one
// neutral part, before the answer), so a resumed session can show it; a
// message without reasoning gets none, and the next request still carries
// the messages as before.
func TestReasoningKeptWithTheMessage(t *testing.T) {
	p := &scripted{}
	p.turns = append(p.turns,
		func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
			emit(agent.StreamEvent{Type: agent.EventReasoningDelta, Text: "First the question. "})
			emit(agent.StreamEvent{Type: agent.EventReasoningDelta, Text: "Then the answer."})
			return answer(agent.TextPart("Done."))(req, emit)
		},
		answer(agent.TextPart("Plain.")),
	)
	s := agent.New(agent.Config{Provider: p, Tools: tools.NewSet()})
	if _, err := collect(t, s, "think"); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, s, "again"); err != nil {
		t.Fatal(err)
	}
	msgs := s.Messages()
	if len(msgs) != 4 {
		t.Fatalf("%d messages", len(msgs))
	}
	first := msgs[1].Parts
	if len(first) != 2 || first[0].Type != agent.PartReasoning || first[0].Text != "First the question. Then the answer." || first[1].Text != "Done." {
		t.Errorf("first answer's parts: %+v", first)
	}
	for _, part := range msgs[3].Parts {
		if part.Type == agent.PartReasoning {
			t.Errorf("an answer without reasoning has a reasoning part: %+v", msgs[3].Parts)
		}
	}
}
