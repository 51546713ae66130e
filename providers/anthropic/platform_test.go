package anthropic

import (
	"bytes"
	"testing"
)

func TestPlatformPrepare(t *testing.T) {
	body := []byte(`{"model":"claude-x","max_tokens":5,"messages":[],"stream":true}`)
	bedrock := &Platform{URL: func(m string, s bool) string { return "/model/" + m }, Version: "bedrock-2023-05-31", BetasInBody: true, NoStreamField: true}
	url, out, betas, err := bedrock.prepare("claude-x", true, body, []string{"web-fetch-2025-09-10"})
	if err != nil || url != "/model/claude-x" || len(betas) != 0 ||
		string(out) != `{"anthropic_version":"bedrock-2023-05-31","anthropic_beta":["web-fetch-2025-09-10"],"max_tokens":5,"messages":[]}` {
		t.Errorf("bedrock: %s %s %v %v", url, out, betas, err)
	}
	search := []byte(`{"model":"m","tools":[{"name":"a","input_schema":{},"defer_loading":true},{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}],"messages":[{"role":"user","content":[{"type":"text","text":"\"defer_loading\":true"}]}]}`)
	plain := []byte(`{"model":"m","tools":[{"name":"a","input_schema":{}}],"messages":[{"role":"user","content":[{"type":"text","text":"\"type\":\"tool_search_tool_x\""}]}]}`)
	bedrock.SearchBeta = "tool-search-tool-2025-10-19"
	if _, out, _, _ := bedrock.prepare("m", false, search, nil); !bytes.Contains(out, []byte(`"anthropic_beta":["tool-search-tool-2025-10-19"]`)) {
		t.Errorf("tool search without its beta: %s", out)
	}
	if _, out, _, _ := bedrock.prepare("m", false, plain, nil); bytes.Contains(out, []byte(`anthropic_beta`)) {
		t.Errorf("a beta without tool search: %s", out)
	}
	vertex := &Platform{URL: func(m string, s bool) string { return m }, Version: "vertex-2023-10-16"}
	_, out, betas, err = vertex.prepare("claude-x", true, body, []string{"b1"})
	if err != nil || len(betas) != 1 || string(out) != `{"anthropic_version":"vertex-2023-10-16","max_tokens":5,"messages":[],"stream":true}` {
		t.Errorf("vertex: %s %v %v", out, betas, err)
	}
}
