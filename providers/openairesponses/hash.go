package openairesponses

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/agent-dev/agent/agent"
)

// ToolsHash is the hash Send would report for req, without sending it: a
// resume compares it with the hash stored for the last request.
func (p *Provider) ToolsHash(req *agent.Request) (string, error) {
	b, err := p.render(req)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b.tools)
	return hex.EncodeToString(sum[:]), nil
}
