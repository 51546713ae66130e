// Package claudeplatform wraps the Anthropic adapter for the cloud
// platforms that serve Claude (Vertex AI, Bedrock). The body and the
// stream are the Messages API's; what differs is the route, the auth, and
// the provider tag: the platform's raw blocks are replayed only to the same
// platform (another platform's, or api.anthropic.com's, travel as neutral
// parts, as they do between any two providers).
package claudeplatform

import (
	"context"
	"errors"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
)

const (
	anthropicTag = "anthropic"
	messagesAPI  = "messages"
)

// Provider is the Anthropic adapter under another name.
type Provider struct {
	*anthropic.Provider
	// Tag names the platform in raw parts and errors ("vertex", "bedrock").
	Tag string
	// Explain, when set, rewrites an error of Send (an auth failure into
	// one line saying what to run).
	Explain func(error) error
}

var _ agent.Provider = (*Provider)(nil)

// Name is the platform's tag.
func (p *Provider) Name() string { return p.Tag }

// API is the Messages API.
func (p *Provider) API() string { return messagesAPI }

// Send hands the Anthropic adapter the platform's raw blocks as its own and
// tags what comes back with the platform.
func (p *Provider) Send(ctx context.Context, req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
	resp, err := p.Provider.Send(ctx, p.prepare(req), emit)
	if resp != nil {
		resp.Message = Retag([]agent.Message{resp.Message}, messagesAPI, anthropicTag, p.Tag)[0]
	}
	if err != nil {
		var ae *agent.APIError
		if errors.As(err, &ae) && ae.Provider == anthropicTag {
			ae.Provider = p.Tag
		}
		if p.Explain != nil {
			err = p.Explain(err)
		}
	}
	return resp, err
}

// prepare is the request as the adapter gets it: the platform's raw blocks
// under the adapter's tag. (Capabilities come from the adapter's models
// table, which reads the platforms' model ids, "us.anthropic.claude-...
// -v1:0" or "claude-...@2025...", like the Anthropic ones.)
func (p *Provider) prepare(req *agent.Request) *agent.Request {
	r := *req
	r.Messages = Retag(req.Messages, messagesAPI, p.Tag, anthropicTag)
	return &r
}

// Render is the body Send would post (before the platform's changes).
func (p *Provider) Render(req *agent.Request) ([]byte, agent.SearchMode, error) {
	return p.Provider.Render(p.prepare(req))
}

// ToolsHash is the hash of the tools array Send would post.
func (p *Provider) ToolsHash(req *agent.Request) (string, error) {
	return p.Provider.ToolsHash(p.prepare(req))
}

// Retag returns msgs with raw parts of api tagged from retagged to, and
// parts already tagged to dropped (they belong to another deployment that
// the target must not be sent). Messages without such parts are shared.
func Retag(msgs []agent.Message, api, from, to string) []agent.Message {
	out := make([]agent.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		if !hasRaw(m, api, from, to) {
			continue
		}
		parts := make([]agent.Part, 0, len(m.Parts))
		for _, pt := range m.Parts {
			if pt.Type == agent.PartRaw && pt.Raw != nil && pt.Raw.API == api {
				switch pt.Raw.Provider {
				case from:
					raw := *pt.Raw
					raw.Provider = to
					pt.Raw = &raw
				case to:
					continue
				}
			}
			parts = append(parts, pt)
		}
		out[i].Parts = parts
	}
	return out
}

func hasRaw(m agent.Message, api string, tags ...string) bool {
	for _, pt := range m.Parts {
		if pt.Type != agent.PartRaw || pt.Raw == nil || pt.Raw.API != api {
			continue
		}
		for _, t := range tags {
			if pt.Raw.Provider == t {
				return true
			}
		}
	}
	return false
}

// AuthError is a credential the platform's library could not produce or the
// platform refused, with what to run.
type AuthError struct {
	Platform string
	Err      error
	Hint     string
}

func (e *AuthError) Error() string {
	s := e.Platform + ": " + e.Err.Error()
	if e.Hint != "" {
		s += " — " + e.Hint
	}
	return s
}

func (e *AuthError) Unwrap() error { return e.Err }

// ExplainAuth returns the AuthError inside err on its own, without the
// transport's wrapping (the URL, "send request"), or err unchanged.
func ExplainAuth(err error) error {
	var ae *AuthError
	if errors.As(err, &ae) {
		return ae
	}
	return err
}
