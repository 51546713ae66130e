package tokenbench

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/agent-dev/agent/tools/tokens"
)

// span is a byte range of a body.
type span struct{ start, end int }

func (s span) of(b []byte) []byte { return b[s.start:s.end] }

// body is a request body split the way the measurements need it.
type body struct {
	raw []byte
	// fields are the top-level members in order; msgKey names the history.
	fields map[string]span
	keys   []string
	msgKey string
	tools  []span // elements of the tools array
	msgs   []span // elements of the history array
	// deferred[i] is set when tools[i] carries "defer_loading": true.
	deferred []bool
	names    []string
	// visible is the part of the deferred definitions the model still
	// sees (OpenAI: names and descriptions of deferred functions).
	visible int
}

// messagesKey is the history field of each API.
func messagesKey(adapter string) string {
	if adapter == Responses {
		return "input"
	}
	return "messages"
}

func parseBody(raw []byte, msgKey string) (*body, error) {
	b := &body{raw: raw, fields: map[string]span{}, msgKey: msgKey}
	members, err := members(raw, 0)
	if err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	for _, m := range members {
		b.fields[m.key] = m.span
		b.keys = append(b.keys, m.key)
	}
	if s, ok := b.fields["tools"]; ok {
		ta, err := parseTools(s.of(raw))
		if err != nil {
			return nil, fmt.Errorf("tools: %w", err)
		}
		for _, t := range ta.elems {
			b.tools = append(b.tools, span{s.start + t.start, s.start + t.end})
		}
		b.deferred, b.names, b.visible = ta.deferred, ta.names, ta.visible
	}
	if s, ok := b.fields[msgKey]; ok {
		if b.msgs, err = elements(raw, s); err != nil {
			return nil, fmt.Errorf("%s: %w", msgKey, err)
		}
	}
	return b, nil
}

// toolsArray is a parsed tools array; spans are relative to it.
type toolsArray struct {
	elems    []span
	deferred []bool
	names    []string
	// visible is what the model still sees of the deferred definitions.
	visible int
}

// parseTools parses a tools array, once per distinct array: a
// conversation sends the same one every time.
func parseTools(raw []byte) (*toolsArray, error) {
	sum := sha256.Sum256(raw)
	countMu.Lock()
	ta, ok := parsedTools[sum]
	countMu.Unlock()
	if ok {
		return ta, nil
	}
	elems, err := elements(raw, span{0, len(raw)})
	if err != nil {
		return nil, err
	}
	ta = &toolsArray{elems: elems}
	for _, t := range elems {
		var d struct {
			Type         string `json:"type"`
			Name         string `json:"name"`
			Description  string `json:"description"`
			DeferLoading bool   `json:"defer_loading"`
			Function     struct {
				Name string `json:"name"`
			} `json:"function"`
			Tools []struct {
				DeferLoading bool `json:"defer_loading"`
			} `json:"tools"`
		}
		_ = json.Unmarshal(t.of(raw), &d)
		if d.Name == "" {
			d.Name = d.Function.Name
		}
		if d.Type == "namespace" && len(d.Tools) > 0 {
			// OpenAI: "For a namespace or MCP server, that means the model
			// sees only the namespace or server name and description at the
			// beginning" (tools-tool-search guide). A namespace whose
			// members are all deferred is out of context but for its name
			// and description; one with an immediate member counts whole.
			all := true
			for _, m := range d.Tools {
				all = all && m.DeferLoading
			}
			ta.deferred = append(ta.deferred, all)
			ta.names = append(ta.names, d.Name)
			if all {
				ta.visible += tokens.CountCached(d.Name + ": " + d.Description + "\n")
			}
			continue
		}
		ta.deferred = append(ta.deferred, d.DeferLoading)
		ta.names = append(ta.names, d.Name)
		if d.DeferLoading && d.Type == "function" {
			// OpenAI: "For individual deferred functions, the model still
			// sees the function name and description, so in practice tool
			// search mainly defers the parameter schemas." Counted as the
			// bare text, a lower bound of however the API lays it out.
			ta.visible += tokens.CountCached(d.Name + ": " + d.Description + "\n")
		}
	}
	countMu.Lock()
	parsedTools[sum] = ta
	countMu.Unlock()
	return ta, nil
}

type member struct {
	key  string
	span span
}

// members lists the members of the object at raw[off:] with the spans of
// their values. Bodies are scanned by hand: json.Decoder is too slow for
// thousands of multi-megabyte bodies.
func members(raw []byte, off int) ([]member, error) {
	i := skipSpace(raw, off)
	if i >= len(raw) || raw[i] != '{' {
		return nil, fmt.Errorf("not an object")
	}
	i = skipSpace(raw, i+1)
	var out []member
	for i < len(raw) && raw[i] != '}' {
		kend, err := scanValue(raw, i)
		if err != nil {
			return nil, err
		}
		var key string
		if err := json.Unmarshal(raw[i:kend], &key); err != nil {
			return nil, fmt.Errorf("key at byte %d: %w", i, err)
		}
		start := skipColon(raw, kend)
		end, err := scanValue(raw, start)
		if err != nil {
			return nil, err
		}
		out = append(out, member{key, span{start, end}})
		i = skipColon(raw, end)
	}
	if i >= len(raw) {
		return nil, fmt.Errorf("object not closed")
	}
	return out, nil
}

// elements lists the spans of the elements of the array at s.
func elements(raw []byte, s span) ([]span, error) {
	i := skipSpace(raw, s.start)
	if i >= s.end || raw[i] != '[' {
		return nil, fmt.Errorf("not an array")
	}
	i = skipColon(raw, i+1)
	var out []span
	for i < s.end && raw[i] != ']' {
		end, err := scanValue(raw, i)
		if err != nil {
			return nil, err
		}
		out = append(out, span{i, end})
		i = skipColon(raw, end)
	}
	return out, nil
}

// scanValue returns the end of the JSON value starting at raw[i].
func scanValue(raw []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(raw); j++ {
		switch raw[j] {
		case '"':
			j++
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			if depth == 0 {
				return j + 1, nil
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, nil
			}
			if depth < 0 {
				return j, nil
			}
		case ',', ' ', '\n', '\t', '\r', ':':
			if depth == 0 {
				return j, nil
			}
		}
	}
	if depth == 0 {
		return len(raw), nil
	}
	return 0, fmt.Errorf("JSON value at byte %d not closed", i)
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\n' || raw[i] == '\t' || raw[i] == '\r') {
		i++
	}
	return i
}

// skipColon moves past whitespace, a colon or a comma to a value's start.
func skipColon(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\n' || raw[i] == '\t' || raw[i] == '\r' || raw[i] == ':' || raw[i] == ',') {
		i++
	}
	return i
}

// contextBody is the body as it enters the model's context: without the
// tool definitions sent with defer_loading, which the API keeps out of
// context until a search loads them.
func (b *body) contextBody() []byte {
	s, ok := b.fields["tools"]
	if !ok {
		return b.raw
	}
	out := append([]byte(nil), b.raw[:s.start]...)
	out = append(out, b.contextTools()...)
	return append(out, b.raw[s.end:]...)
}

// contextTools is the tools array without its deferred definitions.
func (b *body) contextTools() []byte {
	out := []byte{'['}
	n := 0
	for i, t := range b.tools {
		if b.deferred[i] {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, t.of(b.raw)...)
		n++
	}
	return append(out, ']')
}

func (b *body) toolsRaw() []byte {
	if s, ok := b.fields["tools"]; ok {
		return s.of(b.raw)
	}
	return nil
}

// references are the tools the history loads by tool_reference blocks
// (Anthropic's search results): the API expands each into the tool's full
// definition in context, so they count as input although the body only
// names them.
func (b *body) references() []string {
	s, ok := b.fields[b.msgKey]
	if !ok || !bytes.Contains(s.of(b.raw), []byte(`"tool_reference"`)) {
		return nil
	}
	var v any
	_ = json.Unmarshal(s.of(b.raw), &v)
	seen := map[string]bool{}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if x["type"] == "tool_reference" {
				if n, _ := x["tool_name"].(string); n != "" && !seen[n] {
					seen[n] = true
					out = append(out, n)
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	return out
}

// referencedTokens counts the definitions the references load, as plain
// (not deferred) definitions.
func (b *body) referencedTokens(refs []string) int {
	n := 0
	for _, r := range refs {
		for i, name := range b.names {
			if name == r {
				def := bytes.Replace(b.tools[i].of(b.raw), []byte(`,"defer_loading":true`), nil, 1)
				n += count(def)
				break
			}
		}
	}
	return n
}

// count is o200k via tools/tokens (exact; see CountCached). Large pieces
// are remembered by digest: the same tools array comes back on every
// request of a conversation.
func count(b []byte) int {
	if len(b) < 4096 {
		return tokens.CountCached(string(b))
	}
	sum := sha256.Sum256(b)
	countMu.Lock()
	n, ok := counted[sum]
	countMu.Unlock()
	if ok {
		return n
	}
	n = tokens.CountCached(string(b))
	countMu.Lock()
	counted[sum] = n
	countMu.Unlock()
	return n
}

var (
	countMu     sync.Mutex
	counted     = map[[32]byte]int{}
	parsedTools = map[[32]byte]*toolsArray{}
)

// splitLimit is the body size above which a body's count is the count of
// its tools array (remembered across requests) plus that of the rest, not
// of the whole: within a token or two of it, and the 2,000-tool catalog
// would otherwise take minutes.
const splitLimit = 256 << 10

// countBody counts a body whose tools array is toolsVal at s.
func countBody(raw []byte, s span, ok bool) int {
	if len(raw) <= splitLimit || !ok {
		return count(raw)
	}
	rest := append(append([]byte(nil), raw[:s.start]...), raw[s.end:]...)
	return count(s.of(raw)) + count(rest)
}

// sentTokens is the whole body as sent.
func (b *body) sentTokens() int {
	s, ok := b.fields["tools"]
	return countBody(b.raw, s, ok)
}

// contextTokens is what enters the model's context: the body without
// deferred definitions, plus the definitions tool_reference blocks load.
func (b *body) contextTokens() int {
	n := 0
	if s, ok := b.fields["tools"]; ok && len(b.raw) > splitLimit {
		rest := append(append([]byte(nil), b.raw[:s.start]...), b.raw[s.end:]...)
		n = count(b.contextTools()) + count(rest)
	} else {
		n = count(b.contextBody())
	}
	return n + b.visible + b.referencedTokens(b.references())
}

// ContextTokens is what of one request body of adapter's wire format enters
// the model's context: the body without deferred definitions, plus the
// definitions its tool_reference blocks load (the method of the report).
func ContextTokens(adapter string, raw []byte) (int, error) {
	b, err := parseBody(raw, messagesKey(adapter))
	if err != nil {
		return 0, err
	}
	return b.contextTokens(), nil
}
