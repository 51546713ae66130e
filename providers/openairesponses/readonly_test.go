package openairesponses

import (
	"encoding/json"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// What plan mode keeps of the hosted tools: those that only read.
func TestReadOnlyHostedTools(t *testing.T) {
	for _, tc := range []struct {
		pt   agent.ProviderTool
		want bool
	}{
		{agent.ProviderTool{Alias: "web_search"}, true},
		{agent.ProviderTool{Alias: "code_execution"}, false},
		{agent.ProviderTool{Alias: "mcp"}, false},
		{agent.ProviderTool{Raw: json.RawMessage(`{"type":"web_search_preview"}`)}, true},
		{agent.ProviderTool{Raw: json.RawMessage(`{"type":"file_search","vector_store_ids":["vs_1"]}`)}, true},
		{agent.ProviderTool{Raw: json.RawMessage(`{"type":"image_generation"}`)}, false},
		{agent.ProviderTool{Raw: json.RawMessage(`{"type":"local_shell"}`)}, false},
		{agent.ProviderTool{Raw: json.RawMessage(`not json`)}, false},
	} {
		if got := Hosted().ReadOnly(tc.pt); got != tc.want {
			t.Errorf("ReadOnly(%s%s) = %v, want %v", tc.pt.Alias, tc.pt.Raw, got, tc.want)
		}
	}
}
