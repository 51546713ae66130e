package cmd

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// #30: the -p JSON and stream-json's final event carry total_cost_usd,
// duration_ms and num_turns (Claude Code's names); the cost is the fake's
// usage at Claude Sonnet 4.5's published prices ($3 in, $15 out, $0.30
// cache read, $3.75 cache write per million tokens), and null for a model
// with no price.
func TestPrintCost(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "hello"}))
	res := runAgent(t, env, "-p", "hi", "--base-url", fake.URL, "--model", "claude-sonnet-4-5", "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var out struct {
		TotalCostUSD *float64 `json:"total_cost_usd"`
		DurationMS   *int64   `json:"duration_ms"`
		NumTurns     int      `json:"num_turns"`
		Usage        struct {
			In    int `json:"input_tokens"`
			Out   int `json:"output_tokens"`
			Read  int `json:"cache_read_input_tokens"`
			Write int `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatal(err)
	}
	u := out.Usage
	want := (float64(u.In)*3 + float64(u.Out)*15 + float64(u.Read)*0.3 + float64(u.Write)*3.75) / 1e6
	if out.TotalCostUSD == nil || math.Abs(*out.TotalCostUSD-want) > 1e-9 || want == 0 {
		t.Errorf("total_cost_usd %v, want %v for %+v", out.TotalCostUSD, want, u)
	}
	if out.DurationMS == nil || *out.DurationMS < 0 || out.NumTurns != 1 {
		t.Errorf("duration_ms %v, num_turns %d", out.DurationMS, out.NumTurns)
	}

	// stream-json's final event has them too; an unpriced model gives null.
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "hello"}))
	res = runAgent(t, env, "-p", "hi", "--base-url", fake.URL, "--model", "proxy-model-without-price", "--output-format", "stream-json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, `"total_cost_usd":null`) || !strings.Contains(last, `"num_turns":1`) || !strings.Contains(last, `"duration_ms":`) {
		t.Errorf("final stream-json event: %s", last)
	}
}
