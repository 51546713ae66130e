package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// benchRequest is a long conversation over a big deferred catalog.
func benchRequest(deferred, turns int) *agent.Request {
	req := &agent.Request{Model: nativeModel, Tools: []agent.ToolDef{readFile}, Search: agent.SearchNative}
	for i := 0; i < deferred; i++ {
		req.Deferred = append(req.Deferred, agent.ToolDef{Name: fmt.Sprintf("tool_%d", i), Description: strings.Repeat("does things ", 10),
			Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`)})
	}
	req.Deferred = append(req.Deferred, weather)
	for i := 0; i < turns; i++ {
		req.Messages = append(req.Messages, user("Weather in Berlin?"), searchTurn(), toolAnswer("toolu_01B", strings.Repeat("sunny ", 50)),
			agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Sunny.")}})
	}
	req.Messages = append(req.Messages, user("Thanks"))
	return req
}

// BenchmarkRender: one request of a 50-turn conversation with 500 deferred tools.
func BenchmarkRender(b *testing.B) {
	req := benchRequest(500, 50)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildRequest(req, agent.SearchNative); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseStream: a recorded search-and-call stream.
func BenchmarkParseStream(b *testing.B) {
	var sse strings.Builder
	sse.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10}}}\n\n")
	blocks := []string{
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
	}
	for i := 0; i < 200; i++ {
		blocks = append(blocks, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word "}}`)
	}
	blocks = append(blocks, `{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_bm25","input":{}}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"query\": \"wea"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ther\"}"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"weather_lookup"}]}}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":200}}`,
		`{"type":"message_stop"}`)
	for _, l := range blocks {
		fmt.Fprintf(&sse, "event: x\ndata: %s\n\n", l)
	}
	body := sse.String()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		p := &contentParser{req: &agent.Request{}, emit: func(agent.StreamEvent) {}}
		if err := readStream(strings.NewReader(body), p, &agent.Response{}, ""); err != nil {
			b.Fatal(err)
		}
	}
}
