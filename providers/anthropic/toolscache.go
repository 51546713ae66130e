package anthropic

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/internal/toolcache"
)

// renderedTools is a tools array as sent and its hash.
type renderedTools struct {
	json json.RawMessage
	hash string
}

// toolsCache keeps the tools array of the conversation's catalog version:
// it is rendered and hashed once, not on every request.
type toolsCache struct {
	c toolcache.Cache[renderedTools]
}

// get returns the tools array for req, rendering it with render on a miss.
// A nil cache renders every time.
func (tc *toolsCache) get(req *agent.Request, mode agent.SearchMode, fnSearch bool, render func() (json.RawMessage, error)) (renderedTools, error) {
	build := func() (renderedTools, error) {
		b, err := render()
		if err != nil {
			return renderedTools{}, err
		}
		sum := sha256.Sum256(b)
		return renderedTools{json: b, hash: hex.EncodeToString(sum[:])}, nil
	}
	if tc == nil {
		return build()
	}
	// Everything renderTools reads besides the two lists.
	pts, _ := json.Marshal(req.ProviderTools)
	key := toolcache.Key{Version: req.ToolsVersion,
		Extra: string(mode) + "\x00" + strconv.FormatBool(fnSearch) + "\x00" + req.SearchAlgo + "\x00" + req.Model + "\x00" + string(pts)}
	return tc.c.Get(key, build)
}
