package openairesponses

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// BenchmarkParseStream parses the recorded Azure hosted-search stream (two
// responses, ~26 KB).
func BenchmarkParseStream(b *testing.B) {
	_, streams := recordedResponses(&testing.T{}, filepath.Join(fixtures, "azure/azure-tool-search.1.chunks.txt"))
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range streams {
			if _, err := parseStream(context.Background(), strings.NewReader(s), parseContext{}, func(agent.StreamEvent) {}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkBuildBody renders a 200-tool deferred catalog with a replayed turn.
func BenchmarkBuildBody(b *testing.B) {
	req := &agent.Request{Model: "gpt-5.4", Search: agent.SearchNative, Tools: []agent.ToolDef{readFile}, Messages: openaiHistory()}
	for i := 0; i < 200; i++ {
		d := weather
		d.Name = "tool_" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		req.Deferred = append(req.Deferred, d)
	}
	p := New(Options{})
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := p.build(req); err != nil {
			b.Fatal(err)
		}
	}
}
