package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/internal/noimages"
	toolschema "github.com/agent-dev/agent/tools/schema"
)

// The two fixed functions of client-side search. Their declarations are
// constants, so the tools array is the same bytes on every request.
const (
	SearchTool = "tool_search"
	CallTool   = "tool_call"
)

const searchDecl = `{"name":"tool_search","description":"Search the catalog of additional tools that are available but not loaded yet. Returns the best matches with their names, descriptions and full JSON input schemas; then run one with tool_call. The query can be: keywords describing the task; select:NAME,NAME to fetch tools by exact name; or /pattern/ for a case-insensitive regular expression over tool names and descriptions.","parameters":{"type":"object","properties":{"query":{"type":"string","description":"Keywords, select:NAME,NAME, or /regex/."},"limit":{"type":"integer","description":"Maximum number of tools to return (default 5)."}},"required":["query"]}}`

const callDecl = `{"name":"tool_call","description":"Run a tool found by tool_search. Give the tool's exact name and its arguments as a JSON object text matching the input schema tool_search returned, e.g. {\"city\": \"Oslo\"}.","parameters":{"type":"object","properties":{"name":{"type":"string","description":"Exact tool name, as returned by tool_search."},"arguments":{"type":"string","description":"The tool's arguments: a JSON object, as text."}},"required":["name","arguments"]}}`

// SkipSignature is the thoughtSignature Google documents for function calls
// that Gemini did not produce (a conversation moved from another model):
// it tells the API to skip the signature check for that call.
const SkipSignature = "skip_thought_signature_validator"

// rendered is one request ready to send plus what parsing needs.
type rendered struct {
	tag string
	// maxTokens is the output limit sent, maxOutput the model's largest.
	maxTokens, maxOutput int
	body                 []byte
	tools                []byte
	toolsHash            string
	mode                 agent.SearchMode
	fromWire             map[string]string
	// used holds the call ids of the request's history and of the answer
	// so far (callID).
	used map[string]bool
	// declared counts the function declarations sent.
	declared int
	// schemas holds each declared tool's original schema, by name: what
	// its arguments are read back against (toolschema.ArgsFromGemini).
	schemas map[string]json.RawMessage
}

type callRef struct {
	id    string // the neutral call id
	name  string // the function name on the wire
	wire  string // the id Gemini gave the call, if any
	valid bool
}

// wpart is one part of a content with what pairing needs to know.
type wpart struct {
	raw  json.RawMessage
	call *callRef
	resp *callRef
}

type content struct {
	role  string
	parts []wpart
}

func (c *content) calls() []*callRef {
	var out []*callRef
	for _, p := range c.parts {
		if p.call != nil {
			out = append(out, p.call)
		}
	}
	return out
}

type wireContent struct {
	Role  string            `json:"role"`
	Parts []json.RawMessage `json:"parts"`
}

type wireBody struct {
	SystemInstruction *wireContent     `json:"systemInstruction,omitempty"`
	Contents          []wireContent    `json:"contents"`
	Tools             json.RawMessage  `json:"tools,omitempty"`
	GenerationConfig  generationConfig `json:"generationConfig"`
}

type generationConfig struct {
	MaxOutputTokens int             `json:"maxOutputTokens,omitempty"`
	ThinkingConfig  *thinkingConfig `json:"thinkingConfig,omitempty"`
}

type thinkingConfig struct {
	ThinkingBudget *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel  string `json:"thinkingLevel,omitempty"`
	// IncludeThoughts asks for thought summaries, shown as reasoning.
	IncludeThoughts bool `json:"includeThoughts,omitempty"`
}

func (p *Provider) render(req *agent.Request) (*rendered, error) {
	mode := agent.ResolveSearch(p, req)
	caps := p.opts.Models.Lookup(p.opts.Tag, req.Model)
	req = noimages.Strip(req, caps, Images)
	r := &rendered{tag: p.opts.Tag, mode: mode, fromWire: map[string]string{}, schemas: map[string]json.RawMessage{}, used: usedIDs(req.Messages)}
	active := map[string]bool{}
	var decls []string
	declare := func(d agent.ToolDef) error {
		active[d.Name] = true
		wn := wireName(d.Name)
		r.fromWire[wn] = d.Name
		r.schemas[d.Name] = d.Schema
		fd := struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Parameters  json.RawMessage `json:"parameters,omitempty"`
		}{Name: wn, Description: d.Description}
		fd.Parameters = parameters(d.Schema)
		b, err := marshal(fd)
		if err != nil {
			return fmt.Errorf("tool %s: %w", d.Name, err)
		}
		decls = append(decls, string(b))
		return nil
	}
	for _, d := range req.Tools {
		if err := declare(d); err != nil {
			return nil, err
		}
	}
	if mode == agent.SearchOff {
		for _, d := range req.Deferred {
			if err := declare(d); err != nil {
				return nil, err
			}
		}
	}
	if mode == agent.SearchClient {
		decls = append(decls, searchDecl, callDecl)
	}
	var tools []string
	if len(decls) > 0 {
		tools = append(tools, `{"functionDeclarations":[`+strings.Join(decls, ",")+`]}`)
	}
	r.declared = len(decls)
	for _, pt := range req.ProviderTools {
		if len(pt.Raw) == 0 {
			continue
		}
		var c bytes.Buffer
		if err := json.Compact(&c, pt.Raw); err != nil {
			return nil, fmt.Errorf("provider tool: %w", err)
		}
		tools = append(tools, c.String())
	}
	if len(tools) > 0 {
		r.tools = []byte("[" + strings.Join(tools, ",") + "]")
	}
	r.toolsHash = hashOf(r.tools)

	h := &history{r: r, mode: mode, active: active, defs: map[string]agent.ToolDef{}, refs: map[string]*callRef{}, media: caps.ToolResultMedia}
	for _, d := range append(append([]agent.ToolDef(nil), req.Tools...), req.Deferred...) {
		h.defs[d.Name] = d
	}
	contents, err := h.render(req.Messages)
	if err != nil {
		return nil, err
	}
	b := wireBody{Contents: contents, Tools: r.tools}
	system := req.System
	if mode == agent.SearchClient {
		// Gemini reads what the search can find from the system
		// instruction.
		system = req.WithDirectory(system)
	}
	if system != "" {
		b.SystemInstruction = &wireContent{Role: "user", Parts: []json.RawMessage{mustJSON(map[string]string{"text": system})}}
	}
	b.GenerationConfig.MaxOutputTokens = req.MaxTokens
	if b.GenerationConfig.MaxOutputTokens <= 0 {
		b.GenerationConfig.MaxOutputTokens = caps.DefaultMaxTokens
	}
	r.maxTokens, r.maxOutput = b.GenerationConfig.MaxOutputTokens, caps.MaxOutput
	effort := req.Effort
	if effort == "" {
		effort = p.opts.Effort
	}
	b.GenerationConfig.ThinkingConfig = thinking(caps, effort)
	r.body, err = marshal(b)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return r, nil
}

// parameters converts a tool's JSON Schema to Gemini's dialect (the
// project's one converter); a tool that takes no parameters is declared
// without them.
func parameters(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	conv := toolschema.ToGemini(raw)
	var top struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(conv, &top) != nil || len(top.Properties) == 0 {
		return nil
	}
	return conv
}

// thinking maps --effort to the model's thinkingConfig: a level on Gemini
// 3, a token budget on 2.5.
func thinking(caps models.Capabilities, effort string) *thinkingConfig {
	if effort == "" || !caps.CanReason() {
		return nil
	}
	wire, ok := caps.WireEffort(effort)
	if !ok {
		return nil
	}
	switch caps.Thinking {
	case models.ThinkingLevel:
		return &thinkingConfig{ThinkingLevel: wire, IncludeThoughts: true}
	case models.ThinkingBudget:
		budget := map[string]int{"none": 0, "minimal": 512, "low": 1024, "medium": 8192, "high": 24576}[wire]
		return &thinkingConfig{ThinkingBudget: &budget, IncludeThoughts: budget != 0}
	}
	return nil
}

type history struct {
	r      *rendered
	mode   agent.SearchMode
	active map[string]bool
	defs   map[string]agent.ToolDef
	// refs maps a neutral call id to its call on the wire.
	refs map[string]*callRef
	// media: images a tool returned go in its functionResponse's parts
	// (Gemini 3); older models reject them there, and get a note.
	media bool
	// owed are function responses for provider-side searches of another
	// provider, answered in the next user content.
	owed []wpart
	out  []*content
}

func (h *history) render(msgs []agent.Message) ([]wireContent, error) {
	providerResults := map[string]agent.SearchResult{}
	for _, m := range msgs {
		for _, pt := range m.Parts {
			if pt.SearchResult != nil && pt.SearchResult.Where == agent.WhereProvider {
				providerResults[pt.SearchResult.CallID] = *pt.SearchResult
			}
		}
	}
	for _, m := range msgs {
		if m.Role == agent.RoleAssistant {
			h.flushOwed()
			h.assistant(m, providerResults)
			continue
		}
		c := &content{role: "user", parts: h.owed}
		h.owed = nil
		h.user(m, c)
		h.add(c)
	}
	h.flushOwed()
	return h.finish(), nil
}

func (h *history) flushOwed() {
	if len(h.owed) > 0 {
		h.add(&content{role: "user", parts: h.owed})
		h.owed = nil
	}
}

func (h *history) add(c *content) {
	if len(c.parts) > 0 {
		h.out = append(h.out, c)
	}
}

// assistant replays this adapter's own content verbatim when it fits the
// request's search mode, and renders the neutral parts otherwise.
func (h *history) assistant(m agent.Message, providerResults map[string]agent.SearchResult) {
	if raw := m.RawFor(h.r.tag, API); raw != nil {
		if c := h.replay(m, raw.Data); c != nil {
			h.add(c)
			return
		}
	}
	c := &content{role: "model"}
	first := true
	call := func(id, name string, args json.RawMessage) {
		part := map[string]any{"functionCall": map[string]any{"name": name, "args": args}}
		if first {
			// A call Gemini did not make has no signature; Gemini 3
			// wants one on the first call of a step: the documented
			// skip value.
			part["thoughtSignature"] = SkipSignature
			first = false
		}
		ref := &callRef{id: id, name: name, valid: true}
		h.refs[id] = ref
		c.parts = append(c.parts, wpart{raw: mustJSON(part), call: ref})
	}
	for _, pt := range m.Parts {
		switch {
		case pt.Type == agent.PartText && pt.Text != "":
			c.parts = append(c.parts, wpart{raw: mustJSON(map[string]string{"text": pt.Text})})
		case pt.Type == agent.PartToolCall && pt.ToolCall != nil:
			tc := pt.ToolCall
			args := objectArgs(tc.Input)
			if h.mode == agent.SearchClient && !h.active[tc.Name] && tc.Name != SearchTool && tc.Name != CallTool {
				b, _ := marshal(map[string]any{"name": tc.Name, "arguments": string(args)})
				call(tc.ID, CallTool, b)
			} else {
				call(tc.ID, wireName(tc.Name), args)
			}
		case pt.Type == agent.PartSearchCall && pt.SearchCall != nil && h.mode == agent.SearchClient:
			sc := pt.SearchCall
			args, _ := marshal(searchArgs{Query: sc.Text(), Limit: sc.Limit})
			call(sc.ID, SearchTool, args)
			if sc.Where == agent.WhereProvider {
				res, ok := providerResults[sc.ID]
				if !ok {
					res = agent.SearchResult{CallID: sc.ID, Tools: []string{}, Error: "the search did not finish"}
				}
				h.owed = append(h.owed, h.response(sc.ID, SearchTool, h.searchContent(res)))
			}
		}
	}
	h.add(c)
}

// replay returns the stored content as it came, when its calls fit the
// mode; the neutral call ids are matched to its functionCall parts in order.
func (h *history) replay(m agent.Message, data json.RawMessage) *content {
	var w wireContent
	if json.Unmarshal(data, &w) != nil {
		return nil
	}
	var ids []string
	for _, pt := range m.Parts {
		switch {
		case pt.ToolCall != nil:
			ids = append(ids, pt.ToolCall.ID)
		case pt.SearchCall != nil && pt.SearchCall.Where == agent.WhereClient:
			ids = append(ids, pt.SearchCall.ID)
		}
	}
	c := &content{role: "model"}
	n := 0
	for _, raw := range w.Parts {
		var part struct {
			FunctionCall *struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"functionCall"`
		}
		_ = json.Unmarshal(raw, &part)
		wp := wpart{raw: raw}
		if fc := part.FunctionCall; fc != nil {
			switch {
			case n >= len(ids):
				return nil
			case fc.Name == SearchTool || fc.Name == CallTool:
				if h.mode != agent.SearchClient {
					return nil
				}
			default:
				orig, ok := h.r.fromWire[fc.Name]
				if !ok || !h.active[orig] {
					return nil // the tool is no longer declared as is
				}
			}
			wp.call = &callRef{id: ids[n], name: fc.Name, wire: fc.ID, valid: true}
			h.refs[ids[n]] = wp.call
			n++
		}
		c.parts = append(c.parts, wp)
	}
	if n != len(ids) {
		return nil
	}
	return c
}

func (h *history) user(m agent.Message, c *content) {
	var texts []json.RawMessage
	for _, pt := range m.Parts {
		switch {
		case pt.Type == agent.PartText && pt.Text != "":
			texts = append(texts, mustJSON(map[string]string{"text": pt.Text}))
		case pt.Type == agent.PartImage && pt.Image != nil:
			texts = append(texts, inlineData(*pt.Image))
		case pt.Type == agent.PartToolResult && pt.ToolResult != nil:
			res := pt.ToolResult
			text := res.Text
			var media []json.RawMessage
			switch {
			case len(res.Images) > 0 && h.media:
				for _, img := range res.Images {
					media = append(media, inlineData(img))
				}
				if text == "" {
					text = fmt.Sprintf("[%d image(s) attached]", len(res.Images))
				}
			case len(res.Images) > 0:
				text += fmt.Sprintf("\n[%d image(s) returned; not shown: this model takes no images in a function response]", len(res.Images))
			case text == "":
				text = "(no output)"
			}
			key := "output"
			if res.IsError {
				key = "error"
			}
			name := wireName(res.Name)
			if ref := h.refs[res.CallID]; ref != nil {
				name = ref.name
			}
			c.parts = append(c.parts, h.response(res.CallID, name, map[string]any{key: text}, media...))
		case pt.Type == agent.PartSearchResult && pt.SearchResult != nil && pt.SearchResult.Where == agent.WhereClient:
			if h.mode != agent.SearchClient {
				continue
			}
			c.parts = append(c.parts, h.response(pt.SearchResult.CallID, SearchTool, h.searchContent(*pt.SearchResult)))
		}
	}
	c.parts = append(c.parts, wparts(texts)...)
}

// inlineData is a part with an image's bytes inline.
func inlineData(im agent.Image) json.RawMessage {
	return mustJSON(map[string]any{"inlineData": map[string]string{"mimeType": im.MediaType, "data": im.Data}})
}

func wparts(raws []json.RawMessage) []wpart {
	out := make([]wpart, len(raws))
	for i, r := range raws {
		out[i] = wpart{raw: r}
	}
	return out
}

// response is a functionResponse part answering call id, with media
// (inlineData parts) nested in it when there are any.
func (h *history) response(id, name string, response any, media ...json.RawMessage) wpart {
	ref := h.refs[id]
	if ref == nil {
		ref = &callRef{id: id, name: name}
	}
	fr := map[string]any{"name": ref.name, "response": response}
	if ref.wire != "" {
		fr["id"] = ref.wire
	}
	if len(media) > 0 {
		fr["parts"] = media
	}
	return wpart{raw: mustJSON(map[string]any{"functionResponse": fr}), resp: ref}
}

type foundTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

func (h *history) searchContent(r agent.SearchResult) map[string]any {
	if r.Error != "" {
		return map[string]any{"error": r.Error}
	}
	found := []foundTool{}
	for _, n := range r.Tools {
		d, ok := h.defs[n]
		if !ok {
			continue
		}
		schema := d.Schema
		if len(schema) == 0 || !json.Valid(schema) {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		found = append(found, foundTool{Name: d.Name, Description: d.Description, Parameters: schema})
	}
	note := `Run a tool with tool_call {"name": NAME, "arguments": "{...}"}.`
	if len(found) == 0 {
		note = "No tools matched. Try other keywords, a /regex/, or select:NAME."
	}
	return map[string]any{"tools": found, "note": note}
}

// finish enforces what the API rejects with a 400: every model content's
// function calls answered, in number, by the next content (a user content
// of functionResponse parts); no response without its call. Missing
// answers (a turn cut off) get an "interrupted" error response; stray
// responses are dropped. Then same-role neighbours are merged.
func (h *history) finish() []wireContent {
	var out []*content
	for i := 0; i < len(h.out); i++ {
		c := h.out[i]
		if c.role == "user" {
			var prev []*callRef
			if n := len(out); n > 0 && out[n-1].role == "model" {
				prev = out[n-1].calls()
			}
			c = answer(c, prev)
			if len(c.parts) > 0 {
				out = append(out, c)
			}
			continue
		}
		out = append(out, c)
		if len(c.calls()) > 0 && (i+1 >= len(h.out) || h.out[i+1].role != "user") {
			out = append(out, answer(&content{role: "user"}, c.calls()))
		}
	}
	var merged []*content
	for _, c := range out {
		if n := len(merged); n > 0 && merged[n-1].role == c.role && (c.role == "user" || len(merged[n-1].calls()) == 0) {
			merged[n-1].parts = append(merged[n-1].parts, c.parts...)
			continue
		}
		merged = append(merged, c)
	}
	wc := make([]wireContent, 0, len(merged))
	for _, c := range merged {
		w := wireContent{Role: c.role}
		for _, p := range c.parts {
			w.Parts = append(w.Parts, p.raw)
		}
		wc = append(wc, w)
	}
	return wc
}

// answer keeps c's responses to calls (in the calls' order, first), drops
// the others, and adds an interrupted answer for each call left open.
func answer(c *content, calls []*callRef) *content {
	byID := map[string]wpart{}
	var rest []wpart
	for _, p := range c.parts {
		switch {
		case p.resp == nil:
			rest = append(rest, p)
		case byID[p.resp.id].raw == nil:
			byID[p.resp.id] = p
		}
	}
	var parts []wpart
	for _, call := range calls {
		p, ok := byID[call.id]
		if !ok {
			fr := map[string]any{"name": call.name, "response": map[string]any{"error": agent.InterruptedResult}}
			if call.wire != "" {
				fr["id"] = call.wire
			}
			p = wpart{raw: mustJSON(map[string]any{"functionResponse": fr}), resp: call}
		}
		parts = append(parts, p)
	}
	return &content{role: "user", parts: append(parts, rest...)}
}

type searchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// objectArgs is a call's input as a JSON object (functionCall.args is a Struct).
func objectArgs(in json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(in)
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		var c bytes.Buffer
		_ = json.Compact(&c, t)
		return c.Bytes()
	}
	return json.RawMessage(`{}`)
}

// Compiled on first use: package init runs on every start, -p and --help too.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`) })

// wireName makes a tool name acceptable as a Gemini function name (a letter
// or underscore first, then letters, digits, _ . : -, 64 at most). The
// mapping is deterministic so the tools array is stable; parsing maps back.
func wireName(name string) string {
	if validName().MatchString(name) {
		return name
	}
	var sb strings.Builder
	for _, r := range name {
		if r < 128 && (r == '_' || r == '-' || r == '.' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
	}
	s := sb.String()
	suffix := "_" + hashOf([]byte(name))[:8]
	if s == "" || s[0] >= '0' && s[0] <= '9' || s[0] == '-' || s[0] == '.' || s[0] == ':' {
		s = "_" + s
	}
	if len(s) > 64-len(suffix) {
		s = s[:64-len(suffix)]
	}
	return s + suffix
}

func mustJSON(v any) json.RawMessage {
	b, err := marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// usedIDs collects the call ids of msgs.
func usedIDs(msgs []agent.Message) map[string]bool {
	used := map[string]bool{}
	for _, m := range msgs {
		for _, pt := range m.Parts {
			switch {
			case pt.ToolCall != nil:
				used[pt.ToolCall.ID] = true
			case pt.SearchCall != nil:
				used[pt.SearchCall.ID] = true
			}
		}
	}
	return used
}

// callID is the neutral id of a call Gemini gave wire (possibly empty).
// The core, the store and the other providers need ids unique over a
// session (Anthropic rejects a repeated tool_use id, the Responses API a
// repeated call_id), while Gemini's are optional and can repeat across
// turns (Vertex AI mints call_<n> from a small space:
// google/adk-python#6761). So an id Gemini left out, or one the history
// (or this answer) already has, becomes a fresh one of ours; Gemini's own
// stays in the raw content and is what goes back to Gemini, so its
// function responses still carry the id it gave.
func (r *rendered) callID(wire string) string {
	id := wire
	if id == "" || r.used[id] {
		id = newCallID()
	}
	r.used[id] = true
	return id
}
