package anthropic

import (
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
}

// prepare turns a Messages body into the platform's: where it goes, what is
// posted, and the betas still owed as a header.
func (pf *Platform) prepare(model string, stream bool, body []byte, betas []string) (string, []byte, []string, error) {
	o, err := parseObject(body)
	if err != nil {
		return "", nil, nil, fmt.Errorf("platform body: %w", err)
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
