package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/internal/noimages"
	"github.com/agent-dev/agent/providers/internal/toolcache"
)

// Names of the search tools this adapter adds.
const (
	bm25Type  = "tool_search_tool_bm25_20251119"
	bm25Name  = "tool_search_tool_bm25"
	regexType = "tool_search_tool_regex_20251119"
	regexName = "tool_search_tool_regex"
	// ClientSearchTool is the custom tool offered in client mode; the agent
	// runs the search and answers with tool_reference blocks.
	ClientSearchTool = "tool_search"
)

var ephemeral = json.RawMessage(`{"type":"ephemeral"}`)

// maxDeferred is the most tools a request may defer: "Maximum tools:
// 10,000 tools in your catalog" (the tool search tool's Limits).
const maxDeferred = 10000

// maxDeferredBytes keeps a request with every deferred definition under the
// API's 32 MB (a 413 request_too_large past it), with room for the history.
const maxDeferredBytes = 24 << 20

const clientSearchDescription = "Search the catalog of additional tools that are available but not loaded yet. " +
	"Describe the capability you need in `query` (keywords work best); the matching tools are loaded and become callable right away. " +
	"To load tools whose exact names you know, use `select:NAME,NAME` as the query. Search before saying a capability is unavailable."

var clientSearchSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What the tool should do, as keywords, or select:NAME,NAME to load tools by exact name"},"limit":{"type":"integer","minimum":1,"maximum":20,"description":"Maximum number of tools to return (default 5)"}},"required":["query"]}`)

// wireRequest is the Messages API body. Field order is fixed so the same
// request always serialises to the same bytes.
type wireRequest struct {
	Model      string            `json:"model"`
	MaxTokens  int               `json:"max_tokens"`
	System     string            `json:"system,omitempty"`
	Messages   []wireMessage     `json:"messages"`
	Tools      json.RawMessage   `json:"tools,omitempty"`
	MCPServers []json.RawMessage `json:"mcp_servers,omitempty"`
	// Thinking and OutputConfig carry --effort (adaptive thinking and its
	// effort, or a budget).
	Thinking     json.RawMessage `json:"thinking,omitempty"`
	OutputConfig json.RawMessage `json:"output_config,omitempty"`
	Container    string          `json:"container,omitempty"`
	Stream       bool            `json:"stream"`
}

type wireMessage struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}

type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	DeferLoading bool            `json:"defer_loading,omitempty"`
	CacheControl json.RawMessage `json:"cache_control,omitempty"`
}

// rendered is a request ready to send, plus what the caller reports.
type rendered struct {
	// parts are the body as sent (Send posts them without joining them);
	// body is their concatenation, made only for the uncached path.
	parts     [][]byte
	body      []byte
	toolsHash string
	resolved  agent.SearchMode
	betas     []string
	// fnSearch: client search through the tool_search/tool_call functions.
	fnSearch  bool
	maxTokens int
	notice    string
}

// buildRequest renders req for mode. The tools array depends only on the
// request's settings (tools, deferred tools, mode, algorithm, provider
// tools), never on the history, so it is byte-identical on every request.
func buildRequest(req *agent.Request, mode agent.SearchMode) (*rendered, error) {
	return buildWith(req, mode, models.Lookup(providerName, req.Model), nil)
}

// buildWith renders req for mode and the model's capabilities c, taking
// the tools array from tc when it holds this catalog version's.
func buildWith(req *agent.Request, mode agent.SearchMode, c models.Capabilities, tc *toolsCache) (*rendered, error) {
	req = noimages.Strip(req, c, Images)
	pt, err := renderProviderTools(req.ProviderTools, mode == agent.SearchNative)
	if err != nil {
		return nil, err
	}
	// The API takes at most maxDeferred deferred tools, and 32 MB, in a
	// request; past either, whatever the wire budget says, the catalog
	// cannot go out deferred, so search runs through the two functions.
	overCount := len(req.Deferred) > maxDeferred || req.DeferredBytes() > maxDeferredBytes
	if overCount && mode == agent.SearchNative {
		mode = agent.SearchClient
	}
	// The two functions where the model cannot take defer_loading, and past
	// the wire budget, where the deferred definitions would cost more
	// upload than the extra round trip of a client search.
	fnSearch := mode == agent.SearchClient && (!c.DeferLoading || req.OverWireBudget() || overCount)
	tt, err := tc.get(req, mode, fnSearch, func() (json.RawMessage, error) { return renderTools(req, mode, pt, fnSearch) })
	if err != nil {
		return nil, err
	}
	tools := tt.json
	msgs, err := renderHistory(req, mode, fnSearch)
	if err != nil {
		return nil, err
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = c.DefaultMaxTokens
	}
	if req.MaxOutput && c.MaxOutput > maxTokens {
		maxTokens = c.MaxOutput
	}
	th := thinkingFor(req, c, maxTokens)
	if th.thinking != nil && !answersThinkingTurn(msgs) {
		// In a tool loop the API wants the assistant turn being answered
		// to start with its thinking block; one made by another provider
		// (or before --effort) has none, so this request thinks no more.
		th.thinking = nil
		th.notice = "thinking is off until the current tool calls are answered: the turn that made them has no thinking block (another provider's, or from before --effort)"
	}
	system := req.System
	if mode == agent.SearchNative && len(req.Deferred) > 0 {
		// The server-side search tool has no description: the system
		// prompt says what it can find.
		system = req.WithDirectory(system)
	}
	w := wireRequest{
		Model: req.Model, MaxTokens: th.maxTokens, System: system, Messages: msgs,
		MCPServers: pt.mcpServers, Thinking: th.thinking, OutputConfig: th.outputConfig,
		Container: containerOf(req.Messages), Stream: !req.NoStream,
	}
	if len(tools) > 0 {
		// The array goes in as rendered: the encoder would validate and
		// copy it again on every request.
		w.Tools = toolcache.Placeholder
	}
	body, err := marshal(w)
	parts := [][]byte{body}
	if err == nil && len(tools) > 0 {
		parts, err = toolcache.Parts(body, tools)
	}
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	r := &rendered{parts: parts, toolsHash: tt.hash, resolved: mode, betas: pt.betas,
		fnSearch: fnSearch, maxTokens: th.maxTokens, notice: th.notice}
	if tc == nil {
		r.body = toolcache.Join(parts)
	}
	return r, nil
}

// renderTools lays out: active tools, provider tools, then per mode the
// deferred tools (defer_loading) and the search tool last. The prompt-cache
// breakpoint goes on the last tool that is not deferred (a deferred tool
// with cache_control is a 400) and not a raw user definition.
func renderTools(req *agent.Request, mode agent.SearchMode, pt renderedProviderTools, fnSearch bool) (json.RawMessage, error) {
	type entry struct {
		raw      json.RawMessage
		tool     *wireTool
		deferred bool
		// passthrough marks a user's raw definition: it goes out as given,
		// so it never carries the breakpoint.
		passthrough bool
	}
	var es []entry
	plain := func(d agent.ToolDef, deferred bool) entry {
		schema := d.Schema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		// No compact(schema) here: the encoder below compacts a RawMessage
		// as it writes it, and a copy per schema is megabytes at thousands
		// of tools.
		return entry{tool: &wireTool{Name: d.Name, Description: d.Description, InputSchema: schema, DeferLoading: deferred}, deferred: deferred}
	}
	for _, d := range req.Tools {
		es = append(es, plain(d, false))
	}
	for i, r := range pt.tools {
		es = append(es, entry{raw: r, passthrough: pt.passthrough[i], deferred: pt.deferred[i]})
	}
	switch mode {
	case agent.SearchClient:
		if fnSearch {
			// No deferral: the catalog stays out of tools; the two functions
			// find and run its tools.
			es = append(es, entry{tool: &wireTool{Name: ClientSearchTool, Description: req.WithDirectory(fnSearchDescription), InputSchema: clientSearchSchema}},
				entry{tool: &wireTool{Name: CallTool, Description: fnCallDescription, InputSchema: fnCallSchema}})
			break
		}
		fallthrough
	case agent.SearchNative:
		for _, d := range req.Deferred {
			es = append(es, plain(d, true))
		}
		switch {
		case mode == agent.SearchClient:
			es = append(es, entry{tool: &wireTool{Name: ClientSearchTool, Description: req.WithDirectory(clientSearchDescription), InputSchema: clientSearchSchema}})
		case pt.hasSearchTool:
			// The user picked a search tool version with a raw definition.
		case req.SearchAlgo == "regex":
			es = append(es, entry{raw: mustMarshal(object{{"type", mustMarshal(regexType)}, {"name", mustMarshal(regexName)}})})
		default:
			es = append(es, entry{raw: mustMarshal(object{{"type", mustMarshal(bm25Type)}, {"name", mustMarshal(bm25Name)}})})
		}
	default:
		// Off: whatever is deferred goes out eagerly, as a plain tool.
		for _, d := range req.Deferred {
			es = append(es, plain(d, false))
		}
	}
	if len(es) == 0 {
		return nil, nil
	}
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].deferred || es[i].passthrough {
			continue
		}
		if es[i].tool != nil {
			es[i].tool.CacheControl = ephemeral
		} else {
			o, err := parseObject(es[i].raw)
			if err != nil {
				return nil, fmt.Errorf("provider tool: %w", err)
			}
			es[i].raw = mustMarshal(o.set("cache_control", ephemeral))
		}
		break
	}
	// One buffer for the whole array (the bytes mustMarshal of the list
	// would give, without a copy of each element and of the whole).
	size := 2
	for _, e := range es {
		size += len(e.raw) + 1
		if e.tool != nil {
			size += len(e.tool.Name) + len(e.tool.Description) + len(e.tool.InputSchema) + 96
		}
	}
	var b bytes.Buffer
	b.Grow(size)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('[')
	for i, e := range es {
		if i > 0 {
			b.WriteByte(',')
		}
		if e.tool == nil {
			if err := json.Compact(&b, e.raw); err != nil {
				return nil, fmt.Errorf("provider tool: %w", err)
			}
			continue
		}
		if err := enc.Encode(e.tool); err != nil {
			return nil, fmt.Errorf("tool %s: %w", e.tool.Name, err)
		}
		b.Truncate(b.Len() - 1) // Encode's newline
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}
