package vertex_test

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/vertex/vertextest"
)

// The fake runs only the server tools Vertex AI runs (Anthropic's platform
// availability table): web search passes, web fetch, code execution and the
// MCP connector are refused, as app refuses them before any request.
func TestFakeRefusesServerToolsVertexLacks(t *testing.T) {
	for _, c := range []struct {
		pt   agent.ProviderTool
		want string
	}{
		{agent.ProviderTool{Alias: "web_search"}, ""},
		{agent.ProviderTool{Alias: "web_fetch"}, "Input tag 'web_fetch_20250910'"},
		{agent.ProviderTool{Alias: "code_execution"}, "Input tag 'code_execution_20250825'"},
	} {
		f := vertextest.NewServer(t)
		f.Inner.Script = anthropictest.NewScript(anthropictest.Turn{Text: "ok"})
		s := newSession(t, f, true)
		_ = s.Override(func(turn *agent.TurnContext) { turn.ProviderTools = []agent.ProviderTool{c.pt} })
		err := run(t, s, "hi")
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.pt.Alias, err, c.want)
		}
	}
}
