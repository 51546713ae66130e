package anthropic

import (
	"bytes"
	"fmt"
)

// Platform describes a cloud platform serving the Messages API (Claude on
// Vertex AI, on Bedrock): the body is the Messages body without "model"
// (the URL names it) and with anthropic_version in it. Authentication
// travels in Options.HTTPClient's transport.
type Platform struct {
	// URL returns the endpoint for model, streaming or not.
	URL func(model string, stream bool) string
	// Version is the body's anthropic_version ("vertex-2023-10-16").
	Version string
	// BetasInBody sends beta flags as an anthropic_beta array in the body
	// (Bedrock) rather than in the anthropic-beta header (Vertex).
	BetasInBody bool
	// NoStreamField drops "stream" from the body: the URL says it (Bedrock).
	NoStreamField bool
	// SearchBeta is the beta flag the platform wants on requests that use
	// tool search or deferred loading (Vertex AI and Bedrock take
	// "tool-search-tool-2025-10-19", as Claude Code sends it there).
	SearchBeta string
}

// prepare turns a Messages body into the platform's: where it goes, what is
// posted, and the betas still owed as a header.
func (pf *Platform) prepare(model string, stream bool, body []byte, betas []string) (string, []byte, []string, error) {
	o, err := parseObject(body)
	if err != nil {
		return "", nil, nil, fmt.Errorf("platform body: %w", err)
	}
	if pf.SearchBeta != "" && usesToolSearch(o.get("tools")) && !contains(betas, pf.SearchBeta) {
		betas = append(append([]string(nil), betas...), pf.SearchBeta)
	}
	o = o.without("model")
	if pf.NoStreamField {
		o = o.without("stream")
	}
	head := object{{"anthropic_version", mustMarshal(pf.Version)}}
	if pf.BetasInBody && len(betas) > 0 {
		head = append(head, field{"anthropic_beta", mustMarshal(betas)})
		betas = nil
	}
	out, err := append(head, o...).MarshalJSON()
	if err != nil {
		return "", nil, nil, err
	}
	return pf.URL(model, stream), out, betas, nil
}

// usesToolSearch reports whether a tools array has a tool search tool or a
// deferred tool. The patterns can only match JSON structure: inside a
// string the quotes would be escaped.
func usesToolSearch(tools []byte) bool {
	return bytes.Contains(tools, []byte(`"type":"tool_search_tool_`)) || bytes.Contains(tools, []byte(`"defer_loading":true`))
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
