package cmd

import (
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/bedrock/bedrocktest"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	"github.com/agent-dev/agent/providers/vertex/vertextest"
)

// `agent --provider vertex` in the TUI: a turn finds and calls a deferred
// tool; /model switches the Vertex model, then the conversation moves to
// Bedrock, to Gemini and back to Vertex with /model PROVIDER:NAME, every
// turn answered and no fake rejecting a request.
func TestTUIVertexModelSwitches(t *testing.T) {
	isolate(t)
	vx := vertextest.NewServer(t)
	vx.Inner.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Search: "weather", Call: "$found", Input: map[string]any{"city": "Oslo"}}, anthropictest.Turn{Text: "Sunny."},
		anthropictest.Turn{Text: "Still sunny on Opus."},
		anthropictest.Turn{Search: "calendar events", Call: "$found", Input: map[string]any{"date": "2026-12-03"}}, anthropictest.Turn{Text: "Back on Vertex."}))
	br := bedrocktest.NewServer(t)
	br.Inner.SetScript(anthropictest.NewScript(anthropictest.Turn{Call: "tt__get_weather", Input: map[string]any{"city": "Bergen"}}, anthropictest.Turn{Text: "Bedrock here."}))
	gm := geminitest.NewServer(t)
	gm.Script = geminitest.NewScript(geminitest.Turn{Search: "convert currency", Call: "$found", Input: map[string]any{"amount": 1, "from": "EUR", "to": "NOK"}}, geminitest.Turn{Text: "Gemini here."})
	env := map[string]string{
		"GOOGLE_APPLICATION_CREDENTIALS": vx.ServiceAccountJSON(t), "ANTHROPIC_VERTEX_BASE_URL": vx.BaseURL, "CLOUD_ML_REGION": "", "ANTHROPIC_VERTEX_PROJECT_ID": "",
		"AWS_REGION": bedrocktest.Region, "AWS_ACCESS_KEY_ID": bedrocktest.AccessKey, "AWS_SECRET_ACCESS_KEY": bedrocktest.SecretKey,
		"AWS_ENDPOINT_URL_BEDROCK_RUNTIME": br.URL, "AWS_BEARER_TOKEN_BEDROCK": "", "ANTHROPIC_BEDROCK_BASE_URL": "",
		"GEMINI_API_KEY": geminitest.DefaultKey, "GOOGLE_GEMINI_BASE_URL": gm.URL,
	}
	b := newTestTUIBackend(t, env, "--provider", "vertex", "--db", filepath.Join(t.TempDir(), "a.db"),
		"--mcp-config", testMCPConfig(t), "--mcp", "tt", "--defer")
	turn := func(text string) string {
		t.Helper()
		var answer string
		for ev := range b.Send(t.Context(), text) {
			switch ev.Type {
			case agent.EventError:
				t.Fatalf("%q: %v", text, ev.Err)
			case agent.EventTextDelta:
				answer += ev.Text
			case agent.EventToolStarted:
				answer = ""
			}
		}
		return answer
	}
	if got := turn("Weather in Oslo?"); got != "Sunny." {
		t.Errorf("vertex: %q", got)
	}
	steps := []struct{ model, prompt, want string }{
		{"claude-opus-4-5@20251101", "And now?", "Still sunny on Opus."},
		{"bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0", "Weather in Bergen?", "Bedrock here."},
		{"gemini:gemini-3-pro-preview", "1 EUR in NOK?", "Gemini here."},
		{"vertex:claude-sonnet-4-5@20250929", "Any events today?", "Back on Vertex."},
	}
	for _, st := range steps {
		if err := b.SetModel(st.model); err != nil {
			t.Fatalf("/model %s: %v", st.model, err)
		}
		if got := turn(st.prompt); got != st.want {
			t.Errorf("%s: answer %q, want %q", st.model, got, st.want)
		}
	}
	if info := b.Info(); info.Model != "claude-sonnet-4-5@20250929" {
		t.Errorf("model = %s", info.Model)
	}
	for name, n := range map[string]int{"vertex": len(vx.Rejected()) + anthropicRejected(vx.Inner),
		"bedrock": len(br.Rejected()) + anthropicRejected(br.Inner), "gemini": len(gm.Rejected())} {
		if n != 0 {
			t.Errorf("%s rejected %d requests", name, n)
		}
	}
	for _, r := range gm.Rejected() {
		t.Log(r.Rejection)
	}
	for _, r := range append(vx.Inner.Requests(), br.Inner.Requests()...) {
		if r.Rejection != "" {
			t.Log(r.Rejection)
		}
	}
}
