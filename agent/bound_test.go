package agent

import (
	"encoding/json"
	"testing"
)

func TestBoundsAreAtLeastTheEstimates(t *testing.T) {
	msgs := []Message{
		{Role: RoleUser, Parts: []Part{TextPart("Wie spät ist es in 東京? \"quoted\" <b>&</b>")}},
		{Role: RoleAssistant, Parts: []Part{ToolCallPart(ToolCall{ID: "c1", Name: "clock__now", Input: json.RawMessage(`{"tz":"Asia/Tokyo"}`)})}},
		{Role: RoleUser, Parts: []Part{ToolResultPart(ToolResult{CallID: "c1", Name: "clock__now", Text: "12:00 — 正午"})}},
		{Role: RoleAssistant, Parts: []Part{TextPart("ok"), RawPart("anthropic", "messages", json.RawMessage(`[{"type":"text","text":"ok"}]`))}},
	}
	if b, e := messagesBound(msgs), EstimateMessages(msgs); b < e {
		t.Fatalf("messagesBound %d < EstimateMessages %d", b, e)
	}
	req := &Request{System: "Be brief.", Messages: msgs, Tools: []ToolDef{
		{Name: "clock__now", Description: "Current time \"now\"\n\tin a zone <tz>", Schema: json.RawMessage(`{"type":"object","properties":{"tz":{"type":"string"}}}`)},
		{Name: "cached", Description: "x", Schema: json.RawMessage(`{}`), Tokens: 40},
	}}
	s := New(Config{})
	if b, e := requestBound(req), s.estimateRequest(req); b < e {
		t.Fatalf("requestBound %d < estimateRequest %d", b, e)
	}
}
