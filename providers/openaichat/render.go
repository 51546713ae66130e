package openaichat

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/internal/noimages"
	"github.com/agent-dev/agent/providers/provider"
	toolschema "github.com/agent-dev/agent/tools/schema"
)

// The two fixed functions of client-side search. Their names are part of
// the contract with the model; their definitions are constants so the tools
// array is the same bytes on every request.
const (
	SearchTool = "tool_search"
	CallTool   = "tool_call"
)

const searchToolDescription = "Search the catalog of additional tools that are available but not loaded yet. Returns the best matches with their names, descriptions and full JSON input schemas; then run one with tool_call. The query can be: keywords describing the task (ranked search over names, descriptions and parameters); select:NAME,NAME to fetch tools by exact name; or /pattern/ for a case-insensitive regular expression over tool names and descriptions."

// searchToolFor is searchToolDef with the request's directory of deferred
// servers after its description.
func searchToolFor(req *agent.Request) string {
	if req.Directory == "" {
		return searchToolDef
	}
	desc, _ := json.Marshal(req.WithDirectory(searchToolDescription))
	return strings.Replace(searchToolDef, `"description":"`+searchToolDescription+`"`, `"description":`+string(desc), 1)
}

const searchToolDef = `{"type":"function","function":{"name":"tool_search","description":"` + searchToolDescription + `","parameters":{"type":"object","properties":{"query":{"type":"string","description":"Keywords, select:NAME,NAME, or /regex/."},"limit":{"type":"integer","minimum":1,"description":"Maximum number of tools to return (default 5)."}},"required":["query"]}}}`

const callToolDef = `{"type":"function","function":{"name":"tool_call","description":"Run a tool found by tool_search. Give the tool's exact name and its arguments as a JSON object matching the input schema tool_search returned.","parameters":{"type":"object","properties":{"name":{"type":"string","description":"Exact tool name, as returned by tool_search."},"arguments":{"type":"object","description":"Arguments for the tool, matching its input schema."}},"required":["name","arguments"]}}}`

// callToolDefText is tool_call for models that read Gemini's schema
// dialect: Gemini answers a free-form object parameter with a 400
// ("properties: should be non-empty for OBJECT type"), so the arguments
// travel as JSON text, as the native Gemini adapter sends them (unwrapCall
// reads both forms).
const callToolDefText = `{"type":"function","function":{"name":"tool_call","description":"Run a tool found by tool_search. Give the tool's exact name and its arguments as a JSON object text matching the input schema tool_search returned, e.g. {\"city\": \"Oslo\"}.","parameters":{"type":"object","properties":{"name":{"type":"string","description":"Exact tool name, as returned by tool_search."},"arguments":{"type":"string","description":"The tool's arguments: a JSON object, as text."}},"required":["name","arguments"]}}}`

// wire types of the request and response messages.
type wireFunc struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireCall struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Function wireFunc `json:"function"`
	// Extra are the call's other members as the server sent them
	// (Gemini's extra_content): written after the known ones, in key order.
	Extra map[string]json.RawMessage `json:"-"`
}

func (c wireCall) MarshalJSON() ([]byte, error) {
	type plain wireCall
	b, err := json.Marshal(plain(c))
	if err != nil || len(c.Extra) == 0 {
		return b, err
	}
	keys := make([]string, 0, len(c.Extra))
	for k := range c.Extra {
		if !knownCallFields[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, k := range keys {
		buf.WriteByte(',')
		writeJSON(&buf, k)
		buf.WriteByte(':')
		buf.Write(c.Extra[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func (c *wireCall) UnmarshalJSON(b []byte) error {
	type plain wireCall
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if json.Unmarshal(b, &all) != nil {
		return nil
	}
	for k, v := range all {
		if knownCallFields[k] {
			continue
		}
		if c.Extra == nil {
			c.Extra = map[string]json.RawMessage{}
		}
		c.Extra[k] = v
	}
	return nil
}

// wireAssistant is an assistant message as replayed. It is also the raw part
// this adapter stores, so the replay is the same bytes the server produced
// (assembled from the stream).
type wireAssistant struct {
	Role             string     `json:"role"`
	Content          *string    `json:"content"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []wireCall `json:"tool_calls,omitempty"`
}

// wireAssistantKeep is wireAssistant with reasoning_content always
// written: DeepSeek's thinking mode wants it back on every assistant turn
// with tool calls, even empty.
type wireAssistantKeep struct {
	Role             string     `json:"role"`
	Content          *string    `json:"content"`
	ReasoningContent string     `json:"reasoning_content"`
	ToolCalls        []wireCall `json:"tool_calls,omitempty"`
}

type wireTool struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
}

type wireText struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type wireParts struct {
	Role    string        `json:"role"`
	Content []contentPart `json:"content"`
}

// rendered is one request ready to send plus what parsing needs to know.
type rendered struct {
	body      []byte
	tools     []byte
	toolsHash string
	mode      agent.SearchMode
	// fromWire maps a sanitized function name back to the tool's name.
	fromWire map[string]string
	// geminiSchemas holds, on the Gemini dialect, each tool's original
	// schema: what its arguments are read back against
	// (toolschema.ArgsFromGemini).
	geminiSchemas map[string]json.RawMessage
	// server names the server (Options.Name); maxTokens is the output
	// limit sent, maxOutput the model's largest; notice a one-time notice.
	server               string
	maxTokens, maxOutput int
	notice               string
}

// render builds the request body. The tools array depends on req.Tools,
// req.Deferred (only whether it is empty) and req.Search alone.
func (p *Provider) render(req *agent.Request) (*rendered, error) {
	mode := agent.ResolveSearch(p, req)
	caps := p.caps(req.Model)
	req = noimages.Strip(req, caps, provider.ImageRules{})
	r := &rendered{mode: mode, fromWire: map[string]string{}, server: p.opts.Name, maxOutput: caps.MaxOutput}
	active := map[string]bool{}
	var defs []string
	for _, t := range req.Tools {
		active[t.Name] = true
		wn := wireName(t.Name)
		r.fromWire[wn] = t.Name
		schema := bytes.TrimSpace(t.Schema)
		if len(schema) == 0 || bytes.Equal(schema, []byte("null")) {
			schema = []byte(`{"type":"object","properties":{}}`)
		}
		// The model's dialect (Gemini's subset); the original stays what
		// the arguments are checked against.
		if caps.SchemaDialect == models.DialectGemini {
			if r.geminiSchemas == nil {
				r.geminiSchemas = map[string]json.RawMessage{}
			}
			r.geminiSchemas[t.Name] = schema
		}
		schema = toolschema.For(string(caps.SchemaDialect), schema)
		if caps.SchemaDialect == models.DialectGemini && !hasProperties(schema) {
			// Gemini answers an object without properties with a 400
			// ("should be non-empty for OBJECT type"); a function that
			// takes nothing is declared without parameters.
			schema = nil
		}
		fn := struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Parameters  json.RawMessage `json:"parameters,omitempty"`
		}{wn, t.Description, schema}
		b, err := json.Marshal(struct {
			Type     string `json:"type"`
			Function any    `json:"function"`
		}{"function", fn})
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		defs = append(defs, string(b))
	}
	// Raw provider tools pass through (compacted, so the bytes are stable).
	// Aliases such as web_search name hosted tools this API does not have;
	// they are skipped rather than failing a conversation that moved here
	// from a provider that has them.
	for _, pt := range req.ProviderTools {
		if len(pt.Raw) == 0 {
			continue
		}
		var c bytes.Buffer
		if err := json.Compact(&c, pt.Raw); err != nil {
			return nil, fmt.Errorf("provider tool: %w", err)
		}
		defs = append(defs, c.String())
	}
	if mode == agent.SearchClient {
		call := callToolDef
		if caps.SchemaDialect == models.DialectGemini {
			call = callToolDefText
		}
		defs = append(defs, searchToolFor(req), call)
	}
	if len(defs) > 0 {
		r.tools = []byte("[" + strings.Join(defs, ",") + "]")
	}
	sum := sha256.Sum256(r.tools)
	r.toolsHash = hex.EncodeToString(sum[:])

	msgs, err := p.renderMessages(req, mode, active)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`{"model":`)
	writeJSON(&b, req.Model)
	b.WriteString(`,"messages":[`)
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.data)
	}
	b.WriteByte(']')
	if r.tools != nil {
		b.WriteString(`,"tools":`)
		b.Write(r.tools)
	}
	r.maxTokens = req.MaxTokens
	if r.maxTokens <= 0 {
		r.maxTokens = caps.DefaultMaxTokens
	}
	if req.MaxOutput && caps.MaxOutput > r.maxTokens {
		r.maxTokens = caps.MaxOutput
	}
	if r.maxTokens > 0 {
		b.WriteString(`,`)
		writeJSON(&b, p.opts.MaxTokensField)
		b.WriteString(`:` + strconv.Itoa(r.maxTokens))
	}
	if req.Effort != "" {
		r.notice = p.writeEffort(&b, req, caps)
	}
	switch {
	case req.NoStream:
		b.WriteString(`,"stream":false}`)
	case p.opts.NoStreamOptions:
		b.WriteString(`,"stream":true}`)
	default:
		b.WriteString(`,"stream":true,"stream_options":{"include_usage":true}}`)
	}
	r.body = b.Bytes()
	return r, nil
}

// hasProperties reports whether a schema declares at least one property.
func hasProperties(schema json.RawMessage) bool {
	var top struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	return json.Unmarshal(schema, &top) == nil && len(top.Properties) > 0
}

func writeJSON(b *bytes.Buffer, v any) {
	enc, _ := json.Marshal(v)
	b.Write(enc)
}

// Compiled on first use: package init runs on every start, -p and --help too.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

// wireName makes a tool name acceptable to OpenAI's function name rule
// (^[a-zA-Z0-9_-]{1,64}$), which some MCP tool names break. The mapping is
// deterministic so the tools array stays stable; parsing maps it back.
func wireName(name string) string {
	if validName().MatchString(name) {
		return name
	}
	var sb strings.Builder
	for _, r := range name {
		if r < 128 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
	}
	s := sb.String()
	if s == "" || len(s) > 64 || s != name {
		sum := sha256.Sum256([]byte(name))
		suffix := "_" + hex.EncodeToString(sum[:4])
		if len(s) > 64-len(suffix) {
			s = s[:64-len(suffix)]
		}
		s += suffix
	}
	return s
}

var shortID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9]{9}$`) })

// maxCallID is the longest tool call id OpenAI's Chat Completions accepts.
const maxCallID = 40

// callID maps a call id for servers with id rules (Mistral's 9 alphanumeric
// characters). The same id always maps to the same value, so a call and its
// result still match.
func (p *Provider) callID(id string) string {
	if !p.opts.ShortCallIDs || shortID().MatchString(id) {
		if len(id) > maxCallID {
			// Ids made elsewhere can be longer than OpenAI accepts (a
			// Responses tool_search_call id is 54 characters): a 400
			// "string_above_max_length" on every later request.
			sum := sha256.Sum256([]byte(id))
			return "call_" + hex.EncodeToString(sum[:16])
		}
		return id
	}
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	sum := sha256.Sum256([]byte(id))
	out := make([]byte, 9)
	for i := range out {
		out[i] = alnum[int(sum[i])%len(alnum)]
	}
	return string(out)
}
