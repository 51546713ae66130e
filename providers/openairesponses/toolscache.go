package openairesponses

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/internal/toolcache"
)

// plannedTools is what a request's tool lists make, once per catalog
// version: the plan (namespaces, the catalog by name) and the tools array
// with its hash. The plan's maps are only read once made.
type plannedTools struct {
	plan  plan
	tools []byte
	hash  string
}

// plannedTools returns req's plan and tools array, from the cache when
// the catalog version, mode, model and provider tools are the last ones.
func (p *Provider) plannedTools(req *agent.Request, mode agent.SearchMode) (plannedTools, error) {
	pts, _ := json.Marshal(req.ProviderTools)
	key := toolcache.Key{Version: req.ToolsVersion, Extra: string(mode) + "\x00" + req.Model + "\x00" + string(pts)}
	return p.tools.Get(key, func() (plannedTools, error) {
		pl := p.plan(req, mode)
		tools, err := renderTools(req, pl)
		if err != nil {
			return plannedTools{}, err
		}
		sum := sha256.Sum256(tools)
		return plannedTools{plan: pl, tools: tools, hash: hex.EncodeToString(sum[:])}, nil
	})
}
