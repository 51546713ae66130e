package openairesponses

import (
	"github.com/agent-dev/agent/agent"
)

// ToolsHash is the hash Send would report for req, without sending it: a
// resume compares it with the hash stored for the last request.
func (p *Provider) ToolsHash(req *agent.Request) (string, error) {
	b, err := p.render(req)
	if err != nil {
		return "", err
	}
	return b.toolsHash, nil
}
