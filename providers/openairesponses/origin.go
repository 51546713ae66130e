package openairesponses

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"github.com/agent-dev/agent/agent"
)

// Encrypted reasoning is sealed for the organization that made it: sent
// back under a key of another organization (a key or organisation switched
// mid-session, a session resumed with another key, or made on Azure and
// moved to OpenAI, whose raw parts share the "openai" tag) the API refuses
// the whole request, 400 invalid_encrypted_content ("Encrypted content
// organization_id did not match the target organization.":
// openai/codex#13724, openai/codex#8145), on every later request of the
// session.
//
// So every answer that holds reasoning items is stamped with its origin,
// in a Raw part of its own (originAPI), and a request leaves out the
// reasoning items of answers stamped with another origin than the current
// one. The origin is the organization the API names in the
// openai-organization header of its answers ("the organization associated
// with the request": OpenAI API reference, Debugging requests), or, from a
// server that names none (Azure, proxies), the base URL. The current one is
// the last answer's; before the first answer of a process it is the
// newest stamp of the history (filter), or, with none, unknown and every
// item goes in. When that fails with invalid_encrypted_content
// (an item made elsewhere, one stored before stamps existed, or content the
// API could not verify for reasons of its own, openai/codex#8145), the
// request is sent once more without the items it cannot prove were made
// for the organization of that error's answer, or, when that would leave
// them all in, without any (Send); from then on the Provider replays only
// items stamped with the current origin. The refusal is a 400 or, as
// relays and at times the API send it, the failure of a stream that has
// started; a stream that showed some of the answer first is not sent again
// (it would be shown twice), and only the next request leaves them out.
//
// Stored is a fingerprint, never the organization id or the URL: a
// truncated SHA-256, enough to tell two origins apart and nothing to read
// back (a base URL can carry a proxy's token). Nothing is derived from the
// API key: the organization is what the content is sealed for, and the
// key stays out of the session store entirely.
const originAPI = "responses-origin"

// codeInvalidEncrypted is the code of the API's refusal.
const codeInvalidEncrypted = "invalid_encrypted_content"

// reasoningDropped is said once when a refusal left reasoning out.
const reasoningDropped = "earlier reasoning was left out: OpenAI refused it as made for another organisation or key (invalid_encrypted_content)"

// originOf is the origin of an answer with headers h from baseURL.
func originOf(h http.Header, baseURL string) string {
	v := "url\x00" + baseURL
	if org := h.Get("openai-organization"); org != "" {
		v = "org\x00" + org
	}
	sum := sha256.Sum256([]byte("agent reasoning origin\x00" + v))
	return hex.EncodeToString(sum[:12])
}

// originPart is the Raw part stamping an answer with origin.
func originPart(origin string) agent.Part {
	b, _ := json.Marshal(origin)
	return agent.RawPart("openai", originAPI, b)
}

// messageOrigin is the origin m was stamped with, or "" (an answer from
// before stamps, or one without reasoning).
func messageOrigin(m agent.Message) string {
	var s string
	if raw := m.RawFor("openai", originAPI); raw != nil {
		_ = json.Unmarshal(raw.Data, &s)
	}
	return s
}

// replayFilter says which earlier answers' reasoning items a request
// replays.
type replayFilter struct {
	// current is the origin of the last answer ("" unknown).
	current string
	// strict keeps only the items stamped with current: the retry after an
	// invalid_encrypted_content.
	strict bool
}

// keeps reports whether the reasoning items of an answer stamped origin go
// in the request.
func (f replayFilter) keeps(origin string) bool {
	if f.strict {
		return f.current != "" && origin == f.current
	}
	return origin == "" || f.current == "" || origin == f.current
}

// filter is the replayFilter of the next request with history msgs.
// Before the Provider's first answer the current origin is taken to be the
// newest stamp of msgs on an answer whose items it replays (Azure's request
// keeps OpenAI's stamps but not their items): a session resumed under the
// key it last answered under is then not refused (and warned about) once
// more on every resume for the reasoning of an organization it left. When
// the key changed since, that request is refused once, as with no stamp to
// go by.
func (p *Provider) filter(msgs []agent.Message) replayFilter {
	p.originMu.Lock()
	f := replayFilter{current: p.origin, strict: p.strict}
	p.originMu.Unlock()
	for i := len(msgs) - 1; f.current == "" && i >= 0; i-- {
		if m := msgs[i]; m.Role == agent.RoleAssistant && m.RawFor("openai", "responses") != nil {
			f.current = messageOrigin(m)
		}
	}
	return f
}

// setOrigin records the origin of an answer; refused says it was an
// invalid_encrypted_content, after which unstamped items (and those of an
// unknown origin) are left out for the life of the Provider, so a session
// stored before stamps is refused once, not on every request.
func (p *Provider) setOrigin(o string, refused bool) {
	p.originMu.Lock()
	p.origin = o
	p.strict = p.strict || refused
	p.originMu.Unlock()
}
