package tokenbench

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/agent-dev/agent/agent"
)

// Request is what is measured on one request of a conversation.
type Request struct {
	Bytes         int `json:"bytes"`
	SentTokens    int `json:"sent_tokens"`
	ContextTokens int `json:"context_tokens"`
	// Stable: the tools array and every other setting are byte-identical to
	// the previous request's, and so is every message the previous request
	// had (checked from the second request on).
	Stable bool `json:"stable"`
	// StableIgnoringMarkers is Stable with cache_control breakpoints left
	// out of the comparison: they mark where to cache, are not prompt
	// content, and Anthropic's adapter moves its message breakpoint to the
	// newest message on every request, as the API's docs show.
	StableIgnoringMarkers bool `json:"stable_ignoring_markers"`
	// FirstDiff is the first byte at which the body differs from the
	// previous one; NewAt is where its first new message starts.
	FirstDiff int `json:"first_diff"`
	NewAt     int `json:"new_at"`
	// Why says what broke stability, at which byte.
	Why   string      `json:"why,omitempty"`
	Usage agent.Usage `json:"usage"`
}

// analyze measures every request of c.
func analyze(c *Conversation) ([]Request, []*body, error) {
	key := messagesKey(c.Adapter)
	var out []Request
	var bodies []*body
	for i, ex := range c.Exchanges {
		b, err := parseBody(ex.Body, key)
		if err != nil {
			return nil, nil, fmt.Errorf("request %d: %w", i+1, err)
		}
		r := Request{Bytes: len(ex.Body), SentTokens: b.sentTokens(), ContextTokens: b.contextTokens(), Usage: ex.Usage, FirstDiff: -1, NewAt: -1}
		if i > 0 {
			compare(bodies[i-1], b, &r)
		}
		out = append(out, r)
		bodies = append(bodies, b)
	}
	return out, bodies, nil
}

var marker = []byte(`,"cache_control":{"type":"ephemeral"}`)

// compare checks cur against prev: settings, tools, then the history prev
// sent, element by element.
func compare(prev, cur *body, r *Request) {
	r.FirstDiff = commonPrefix(prev.raw, cur.raw)
	k := len(prev.msgs)
	switch {
	case k < len(cur.msgs):
		r.NewAt = cur.msgs[k].start
	case len(cur.msgs) > 0:
		r.NewAt = cur.msgs[len(cur.msgs)-1].end
	}
	why := ""
	markersOnly := true
	for _, key := range cur.keys {
		if key == cur.msgKey {
			continue
		}
		a, b := prev.fields[key], cur.fields[key]
		if !bytes.Equal(a.of(prev.raw), b.of(cur.raw)) {
			why = fmt.Sprintf("%q differs at byte %d of the body", key, b.start+commonPrefix(a.of(prev.raw), b.of(cur.raw)))
			markersOnly = false
			break
		}
	}
	if why == "" && len(prev.keys) != len(cur.keys) {
		why, markersOnly = fmt.Sprintf("top-level fields changed: %v -> %v", prev.keys, cur.keys), false
	}
	if why == "" && len(cur.msgs) < k {
		why, markersOnly = fmt.Sprintf("history shrank from %d to %d messages", k, len(cur.msgs)), false
	}
	if why == "" {
		for j := 0; j < k; j++ {
			a, b := prev.msgs[j].of(prev.raw), cur.msgs[j].of(cur.raw)
			if bytes.Equal(a, b) {
				continue
			}
			at := cur.msgs[j].start + commonPrefix(a, b)
			why = fmt.Sprintf("%s[%d] differs at byte %d: %s", cur.msgKey, j, at, around(cur.raw, prev.raw, at, prev.msgs[j].start+commonPrefix(a, b)))
			if !bytes.Equal(bytes.ReplaceAll(a, marker, nil), bytes.ReplaceAll(b, marker, nil)) {
				markersOnly = false
				break
			}
		}
	}
	r.Why = why
	r.Stable = why == ""
	r.StableIgnoringMarkers = why == "" || markersOnly
}

// around quotes both bodies near the byte where they part.
func around(cur, prev []byte, at, atPrev int) string {
	q := func(b []byte, i int) string {
		lo, hi := max(0, i-24), min(len(b), i+40)
		return strconv.Quote(string(b[lo:hi]))
	}
	return "was " + q(prev, atPrev) + ", now " + q(cur, at)
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
