package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/vertex/vertextest"
)

// `agent --provider vertex` in a real terminal: a native search and call on
// Claude on Vertex AI (token from a service account key whose token_uri is
// the fake's), then /model switches to another Vertex model and the next
// turn goes to that model's route.
func TestTUIVertexInTmux(t *testing.T) {
	isolate(t)
	vx := vertextest.NewServer(t)
	vx.Inner.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "It is sunny in Berlin today."},
		anthropictest.Turn{Text: "Opus agrees: sunny."},
	))
	env := map[string]string{"HOME": os.Getenv("HOME"), "XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "XDG_DATA_HOME": os.Getenv("XDG_DATA_HOME"),
		"GOOGLE_APPLICATION_CREDENTIALS": vx.ServiceAccountJSON(t), "ANTHROPIC_VERTEX_BASE_URL": vx.BaseURL}
	ts := startTmux(t, env, "--provider", "vertex", "--db", filepath.Join(t.TempDir(), "a.db"),
		"--mcp-config", testMCPConfig(t), "--mcp", "tt", "--defer", "--theme", "dark")
	ts.waitFor("/help", "search native ")
	ts.send("Weather in Berlin?", "Enter")
	ts.waitFor("weather forecast", "tt__get_weather", "sunny in Berlin")
	ts.send("/model claude-opus-4-5@20251101", "Enter")
	ts.waitFor("claude-opus-4-5@20251101")
	ts.send("Sure?", "Enter")
	ts.waitFor("Opus agrees")
	ts.quit()
	reqs := vx.Requests()
	if len(reqs) != 3 || len(vx.Rejected()) != 0 {
		t.Fatalf("requests %d, rejected %+v", len(reqs), vx.Rejected())
	}
	if want := "/v1/projects/agent-test-project/locations/global/publishers/anthropic/models/claude-opus-4-5@20251101:streamRawPredict"; reqs[2].Path != want {
		t.Errorf("after /model: %s", reqs[2].Path)
	}
}
