package openairesponses

import (
	"crypto/sha256"
	"encoding/hex"
)

// maxCallID is the longest call_id the API takes: a longer one is a 400
// "string_above_max_length" on input[N].call_id (AnswerDotAI/fastllm#45,
// decolua/9router#393), on every later request of the conversation.
const maxCallID = 64

// wireCallID is the call_id a call made elsewhere goes out with. Another
// provider's ids can be longer (some Chat servers and proxies make ids of
// 80 to 450 characters: NousResearch/hermes-agent#73538,
// bastani-inc/atomic#2204) or empty; those map to a short id of their own,
// the same on every request, so a call and its output still match.
func wireCallID(id string) string {
	if id != "" && len(id) <= maxCallID {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "call_" + hex.EncodeToString(sum[:16])
}
