package anthropic

import "testing"

func TestPlatformPrepare(t *testing.T) {
	body := []byte(`{"model":"claude-x","max_tokens":5,"messages":[],"stream":true}`)
	bedrock := &Platform{URL: func(m string, s bool) string { return "/model/" + m }, Version: "bedrock-2023-05-31", BetasInBody: true, NoStreamField: true}
	url, out, betas, err := bedrock.prepare("claude-x", true, body, []string{"web-fetch-2025-09-10"})
	if err != nil || url != "/model/claude-x" || len(betas) != 0 ||
		string(out) != `{"anthropic_version":"bedrock-2023-05-31","anthropic_beta":["web-fetch-2025-09-10"],"max_tokens":5,"messages":[]}` {
		t.Errorf("bedrock: %s %s %v %v", url, out, betas, err)
	}
	vertex := &Platform{URL: func(m string, s bool) string { return m }, Version: "vertex-2023-10-16"}
	_, out, betas, err = vertex.prepare("claude-x", true, body, []string{"b1"})
	if err != nil || len(betas) != 1 || string(out) != `{"anthropic_version":"vertex-2023-10-16","max_tokens":5,"messages":[],"stream":true}` {
		t.Errorf("vertex: %s %v %v", out, betas, err)
	}
}
