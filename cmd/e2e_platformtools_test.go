package cmd

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/bedrock/bedrocktest"
	"github.com/agent-dev/agent/providers/vertex/vertextest"
)

// Anthropic's server tools a platform does not run are refused at start:
// exit 2, one line naming the platform and the tool, no request sent.
func TestProviderToolsPerPlatform(t *testing.T) {
	vx := vertextest.NewServer(t)
	vertexEnv := map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": vx.ServiceAccountJSON(t), "ANTHROPIC_VERTEX_BASE_URL": vx.BaseURL,
		"CLOUD_ML_REGION": "", "ANTHROPIC_VERTEX_PROJECT_ID": ""}
	br := bedrocktest.NewServer(t)
	bedrockEnv := map[string]string{"AWS_REGION": bedrocktest.Region, "AWS_ACCESS_KEY_ID": bedrocktest.AccessKey, "AWS_SECRET_ACCESS_KEY": bedrocktest.SecretKey,
		"AWS_ENDPOINT_URL_BEDROCK_RUNTIME": br.URL, "AWS_BEARER_TOKEN_BEDROCK": "", "ANTHROPIC_BEDROCK_BASE_URL": ""}
	for _, c := range []struct {
		env        map[string]string
		args       []string
		want, tool string
	}{
		{vertexEnv, []string{"--provider", "vertex", "--provider-tool", "web_fetch"}, "Vertex AI", "web_fetch"},
		{vertexEnv, []string{"--provider", "vertex", "--provider-tool", "code_execution"}, "Vertex AI", "code_execution"},
		{vertexEnv, []string{"--provider", "vertex", "--provider-tool", `mcp:{"name":"docs","url":"https://example.com/mcp"}`}, "Vertex AI", "mcp"},
		{vertexEnv, []string{"--provider", "vertex", "--provider-tool", `{"type":"web_fetch_20250910","name":"web_fetch"}`}, "Vertex AI", "web_fetch"},
		{bedrockEnv, []string{"--provider", "bedrock", "--provider-tool", "web_search"}, "bedrock", `"web_search"`},
	} {
		isolate(t)
		res := runAgent(t, c.env, append([]string{"-p", "hi", "--db", filepath.Join(t.TempDir(), "a.db")}, c.args...)...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) || !strings.Contains(res.stderr, "provider tool "+c.tool+" ") ||
			bytes.Count([]byte(res.stderr), []byte("\n")) > 1 {
			t.Errorf("%v: exit %d, stderr %q (want one line naming %s and %s)", c.args, res.code, res.stderr, c.want, c.tool)
		}
	}
	if n := len(vx.Requests()) + len(br.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// agent models: every key in snake_case, Sonnet 4.6 at 1M and 128K, the
// effort map, and the provider tools the platform runs.
func TestModelsShowsIssue29Fields(t *testing.T) {
	isolate(t)
	res := runAgent(t, nil, "models", "--provider", "anthropic", "--json", "claude-sonnet-4-6")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(res.stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("%v: %s", err, res.stdout)
	}
	r := rows[0]
	for k := range r {
		if strings.ToLower(k) != k {
			t.Errorf("key %q is not snake_case", k)
		}
	}
	if r["context_window"] != float64(1_000_000) || r["max_output"] != float64(128_000) || r["schema_dialect"] != "jsonschema" || r["takes_images"] != true {
		t.Errorf("row %v", r)
	}
	if m, _ := r["effort_map"].(map[string]any); m["max"] != "max" || m["none"] != "off" {
		t.Errorf("effort map %v", r["effort_map"])
	}
	txt := runAgent(t, nil, "models", "--provider", "vertex", "claude-sonnet-4-6")
	if txt.code != 0 || !strings.Contains(txt.stdout, "provider tools  web_search\n") {
		t.Errorf("vertex lists its server tools: exit %d\n%s", txt.code, txt.stdout)
	}
	txt = runAgent(t, nil, "models", "--provider", "bedrock", "anthropic.claude-sonnet-4-6")
	if txt.code != 0 || !strings.Contains(txt.stdout, "provider tools  none\n") {
		t.Errorf("bedrock runs none of them: exit %d\n%s", txt.code, txt.stdout)
	}
}

// A model its maker retired is refused at start on the maker's own API,
// one line with the date; no request would be served.
func TestRetiredModelRefusedAtStart(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		args []string
		date string
	}{
		{map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}, []string{"--provider", "anthropic", "--model", "claude-3-5-haiku-20241022"}, "2026-02-19"},
		{map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}, []string{"--provider", "anthropic", "--model", "claude-3-7-sonnet-20250219"}, "2026-02-19"},
		{map[string]string{"DEEPSEEK_API_KEY": "k"}, []string{"--provider", "deepseek", "--base-url", "http://127.0.0.1:9/v1", "--model", "deepseek-chat"}, "2026-07-24"},
	} {
		isolate(t)
		res := runAgent(t, c.env, append([]string{"-p", "hi", "--db", filepath.Join(t.TempDir(), "a.db")}, c.args...)...)
		if res.code != 2 || !strings.Contains(res.stderr, "retired by its maker on "+c.date) || strings.Count(res.stderr, "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q", c.args, res.code, res.stderr)
		}
	}
}
