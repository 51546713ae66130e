package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/agent"
)

// block is a content block with the members rendering needs to look at.
type block struct {
	raw       json.RawMessage
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Content   json.RawMessage `json:"content"`
}

func parseBlocks(raw json.RawMessage) ([]block, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("raw content is not a JSON array: %w", err)
	}
	out := make([]block, len(items))
	for i, it := range items {
		if err := json.Unmarshal(it, &out[i]); err != nil {
			return nil, fmt.Errorf("raw content block %d: %w", i, err)
		}
		out[i].raw = it
	}
	return out, nil
}

// A server-side tool call and its result are a pair the API insists on.
func (b block) isUse() bool    { return b.Type == "server_tool_use" || b.Type == "mcp_tool_use" }
func (b block) isResult() bool { return b.ToolUseID != "" && b.Type != "tool_result" }
func (b block) isSearchUse() bool {
	return b.Type == "server_tool_use" && strings.HasPrefix(b.Name, "tool_search_tool_")
}
func (b block) isSearchResult() bool { return b.Type == "tool_search_tool_result" }

// view is what the pairing rules need to know about one assistant message.
type view struct {
	raw     []block // nil when rendered from neutral parts
	uses    []string
	results map[string]bool
	// searchResults maps a search call id to its result, for conversion to
	// the client form.
	searchResults map[string]agent.SearchResult
}

type historyRenderer struct {
	req   *agent.Request
	mode  agent.SearchMode
	msgs  []agent.Message
	views map[int]*view
	// fnSearch: client search through tool_search/tool_call functions; the
	// deferred tools (catalog) are reached through tool_call.
	fnSearch bool
	// catalog indexes req.Deferred by name, built on first use: only a
	// history with tool calls or search results asks, and at thousands of
	// deferred tools building it cost more than the rest of the request.
	catalog map[string]int
	// userTools are the names of the tools sent as they are.
	userTools map[string]bool
}

// deferredDef finds a deferred tool of the request by name.
func (h *historyRenderer) deferredDef(name string) (agent.ToolDef, bool) {
	if h.catalog == nil {
		h.catalog = make(map[string]int, len(h.req.Deferred))
		for i, d := range h.req.Deferred {
			h.catalog[d.Name] = i
		}
	}
	i, ok := h.catalog[name]
	if !ok {
		return agent.ToolDef{}, false
	}
	return h.req.Deferred[i], true
}

// known reports whether a tool_reference may name the tool: one sent as
// it is, or a deferred one while search is on.
func (h *historyRenderer) known(name string) bool {
	if h.userTools[name] {
		return true
	}
	_, deferred := h.deferredDef(name)
	return deferred && h.mode != agent.SearchOff
}

// renderHistory turns the neutral history into Messages API messages.
func renderHistory(req *agent.Request, mode agent.SearchMode, fnSearch bool) ([]wireMessage, error) {
	h := &historyRenderer{req: req, mode: mode, msgs: req.Messages, views: map[int]*view{},
		fnSearch: fnSearch, userTools: make(map[string]bool, len(req.Tools))}
	for _, d := range req.Tools {
		h.userTools[d.Name] = true
	}
	for i, m := range h.msgs {
		if m.Role != agent.RoleAssistant {
			continue
		}
		v, err := h.buildView(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		h.views[i] = v
	}
	var out []wireMessage
	var queued []json.RawMessage // tool_results owed by the last assistant message
	for i, m := range h.msgs {
		switch m.Role {
		case agent.RoleAssistant:
			if len(queued) > 0 {
				out = append(out, wireMessage{Role: "user", Content: queued})
			}
			blocks, q := h.assistant(i)
			queued = q
			if len(blocks) > 0 {
				out = append(out, wireMessage{Role: "assistant", Content: blocks})
			}
		default:
			blocks := append(queued, h.user(m)...)
			queued = nil
			if len(blocks) > 0 {
				out = append(out, wireMessage{Role: "user", Content: blocks})
			}
		}
	}
	if len(queued) > 0 {
		out = append(out, wireMessage{Role: "user", Content: queued})
	}
	out = trimFinalAssistant(fixPairs(uniqueIDs(mergeRoles(out))))
	if n := len(out); n > 0 && out[n-1].Role == "user" {
		c := out[n-1].Content
		o, err := parseObject(c[len(c)-1])
		if err == nil {
			c[len(c)-1] = mustMarshal(o.set("cache_control", ephemeral))
		}
	}
	return out, nil
}

func (h *historyRenderer) buildView(m agent.Message) (*view, error) {
	v := &view{results: map[string]bool{}, searchResults: map[string]agent.SearchResult{}}
	if raw := m.RawFor(providerName, apiName); raw != nil {
		bs, err := parseBlocks(raw.Data)
		if err != nil {
			return nil, err
		}
		v.raw = bs
		for _, b := range bs {
			switch {
			case b.isUse():
				v.uses = append(v.uses, b.ID)
			case b.isResult():
				v.results[b.ToolUseID] = true
			}
		}
	}
	// The neutral search results are read in both cases: they carry the
	// discovered names the client form needs.
	for _, p := range m.Parts {
		switch {
		case p.SearchCall != nil && p.SearchCall.Where == agent.WhereProvider && v.raw == nil:
			v.uses = append(v.uses, p.SearchCall.ID)
		case p.SearchResult != nil && p.SearchResult.Where == agent.WhereProvider:
			v.searchResults[p.SearchResult.CallID] = *p.SearchResult
			if v.raw == nil {
				v.results[p.SearchResult.CallID] = true
			}
		}
	}
	return v, nil
}

func (h *historyRenderer) nextAssistant(i int) int {
	for j := i + 1; j < len(h.msgs); j++ {
		if h.msgs[j].Role == agent.RoleAssistant {
			return j
		}
	}
	return -1
}

func (h *historyRenderer) prevAssistant(i int) int {
	for j := i - 1; j >= 0; j-- {
		if h.msgs[j].Role == agent.RoleAssistant {
			return j
		}
	}
	return -1
}

// resultOf finds where the result of server call id (made in message i)
// is: in i itself or at the start of the next assistant message (a split
// search). It returns -1 when there is none.
func (h *historyRenderer) resultOf(i int, id string) int {
	if h.views[i].results[id] {
		return i
	}
	if j := h.nextAssistant(i); j >= 0 && h.views[j].results[id] {
		return j
	}
	return -1
}

// keepUse says whether a server call may be sent: with its result, or as
// the last thing the model did, when the API will deliver the result at
// the start of its next response. A call cut off by a stream error has no
// result coming and would be rejected as half a pair.
func (h *historyRenderer) keepUse(i int, id string) bool {
	if h.resultOf(i, id) >= 0 {
		return true
	}
	return h.nextAssistant(i) < 0 && !h.msgs[i].Interrupted
}

// keepResult says whether a result block has its call in the same or the
// previous assistant message, and that call is sent.
func (h *historyRenderer) keepResult(i int, id string) bool {
	for _, j := range []int{i, h.prevAssistant(i)} {
		if j < 0 {
			continue
		}
		for _, u := range h.views[j].uses {
			if u == id {
				return h.keepUse(j, id)
			}
		}
	}
	return false
}

func (h *historyRenderer) searchResult(i int, id string) (agent.SearchResult, bool) {
	for _, j := range []int{i, h.nextAssistant(i)} {
		if j < 0 {
			continue
		}
		if r, ok := h.views[j].searchResults[id]; ok {
			return r, true
		}
	}
	return agent.SearchResult{}, false
}

// clientSearchIsTool reports whether a tool_use named tool_search is a
// user tool rather than the client search tool.
func (h *historyRenderer) clientSearchIsTool() bool {
	for _, d := range h.req.Tools {
		if d.Name == ClientSearchTool {
			return true
		}
	}
	return false
}

// assistant renders message i and returns the tool_results the following
// user message owes for searches converted to the client form.
func (h *historyRenderer) assistant(i int) (blocks, queued []json.RawMessage) {
	v := h.views[i]
	m := h.msgs[i]
	if v.raw != nil {
		for _, b := range v.raw {
			switch {
			case b.isSearchUse() && h.mode != agent.SearchNative:
				// Native search is not in this request's tools: carry what it
				// found over in the client form, or drop it when search is off.
				if h.mode == agent.SearchClient {
					if r, ok := h.searchResult(i, b.ID); ok {
						id := convertedID(b.ID)
						blocks = append(blocks, clientSearchUse(id, searchInput(b.Input)))
						queued = append(queued, h.referenceResult(id, r))
					}
				}
			case b.isSearchResult() && h.mode != agent.SearchNative:
			case b.isUse() && !h.keepUse(i, b.ID):
			case b.isResult() && !h.keepResult(i, b.ToolUseID):
			case b.Type == "tool_use" && b.Name == ClientSearchTool && h.mode == agent.SearchOff && !h.clientSearchIsTool():
			case b.Type == "tool_use" && h.wrapped(b.Name):
				blocks = append(blocks, wrapCall(b.ID, b.Name, b.Input))
			case b.Type == "tool_use" && b.Name == CallTool && !h.fnSearch && !h.userTools[CallTool]:
				// Made through tool_call under a model without deferral; this
				// request offers the tool itself.
				var w struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				}
				_ = json.Unmarshal(b.Input, &w)
				in := w.Arguments
				if len(in) == 0 || string(in) == "null" {
					in = json.RawMessage(`{}`)
				}
				blocks = append(blocks, toolUse(b.ID, w.Name, compact(in)))
			case b.isSearchResult():
				blocks = append(blocks, h.availableRefs(b))
			default:
				blocks = append(blocks, b.raw)
			}
		}
		return blocks, queued
	}
	// Another provider's message: render from the neutral parts. Its
	// server-side tools cannot be replayed here and are left out.
	for _, p := range m.Parts {
		switch {
		case p.Type == agent.PartText && p.Text != "":
			blocks = append(blocks, mustMarshal(object{{"type", mustMarshal("text")}, {"text", mustMarshal(p.Text)}}))
		case p.ToolCall != nil:
			in := p.ToolCall.Input
			if !isObject(in) {
				// Another provider's model may have sent arguments that are
				// not an object (Chat keeps them as a JSON string); the API
				// takes only an object ("Input should be a valid
				// dictionary"), and the call's result already says what was
				// wrong.
				in = json.RawMessage(`{}`)
			}
			if h.wrapped(p.ToolCall.Name) {
				blocks = append(blocks, wrapCall(sanitizeID(p.ToolCall.ID), p.ToolCall.Name, in))
				continue
			}
			blocks = append(blocks, toolUse(sanitizeID(p.ToolCall.ID), p.ToolCall.Name, compact(in)))
		case p.SearchCall != nil && h.mode != agent.SearchOff:
			c := *p.SearchCall
			if c.Where == agent.WhereClient {
				blocks = append(blocks, clientSearchUse(sanitizeID(c.ID), clientInput(c)))
				continue
			}
			if r, ok := h.searchResult(i, c.ID); ok {
				id := convertedID(c.ID)
				blocks = append(blocks, clientSearchUse(id, clientInput(c)))
				queued = append(queued, h.referenceResult(id, r))
			}
		}
	}
	return blocks, queued
}

func (h *historyRenderer) user(m agent.Message) []json.RawMessage {
	var out []json.RawMessage
	for _, p := range m.Parts {
		switch {
		case p.Type == agent.PartText && p.Text != "":
			out = append(out, mustMarshal(object{{"type", mustMarshal("text")}, {"text", mustMarshal(p.Text)}}))
		case p.Type == agent.PartImage && p.Image != nil:
			out = append(out, imageBlock(*p.Image))
		case p.ToolResult != nil:
			if strings.HasPrefix(p.ToolResult.CallID, "srvtoolu_") {
				continue // the API runs its own tools; answering one is a 400
			}
			out = append(out, toolResult(*p.ToolResult))
		case p.SearchResult != nil && p.SearchResult.Where == agent.WhereClient && h.mode != agent.SearchOff:
			out = append(out, h.referenceResult(sanitizeID(p.SearchResult.CallID), *p.SearchResult))
		}
	}
	return out
}

// wrapped reports whether a call of name goes through tool_call in this
// request: a deferred tool under function-form search.
func (h *historyRenderer) wrapped(name string) bool {
	if !h.fnSearch || h.userTools[name] {
		return false
	}
	_, deferred := h.deferredDef(name)
	return deferred
}

// referenceResult answers a client search with tool_reference blocks, one
// per found tool this request offers; the API loads their definitions.
// Under function-form search it answers with the definitions as text.
func (h *historyRenderer) referenceResult(id string, r agent.SearchResult) json.RawMessage {
	if h.fnSearch {
		return fnSearchAnswer(id, r, h.deferredDef)
	}
	var content []json.RawMessage
	var missing []string
	for _, name := range r.Tools {
		if h.known(name) {
			content = append(content, mustMarshal(object{{"type", mustMarshal("tool_reference")}, {"tool_name", mustMarshal(name)}}))
		} else {
			missing = append(missing, name)
		}
	}
	note := ""
	switch {
	case r.Error != "":
		note = "tool search failed: " + r.Error
	case len(missing) > 0:
		note = "not available in this conversation: " + strings.Join(missing, ", ")
	case len(content) == 0:
		note = "no matching tools found"
	}
	if note != "" {
		content = append(content, textBlock(note))
	}
	o := object{{"type", mustMarshal("tool_result")}, {"tool_use_id", mustMarshal(id)}, {"content", mustMarshal(content)}}
	if r.Error != "" {
		o = append(o, field{"is_error", json.RawMessage("true")})
	}
	return mustMarshal(o)
}

func textBlock(s string) json.RawMessage {
	return mustMarshal(object{{"type", mustMarshal("text")}, {"text", mustMarshal(s)}})
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}

func toolUse(id, name string, input json.RawMessage) json.RawMessage {
	return mustMarshal(object{{"type", mustMarshal("tool_use")}, {"id", mustMarshal(id)}, {"name", mustMarshal(name)}, {"input", input}})
}

func clientSearchUse(id string, input json.RawMessage) json.RawMessage {
	return toolUse(id, ClientSearchTool, input)
}

// imageBlock is an image content block with its bytes inline (a base64
// source), in a user message or a tool result alike.
func imageBlock(im agent.Image) json.RawMessage {
	src := object{{"type", mustMarshal("base64")}, {"media_type", mustMarshal(im.MediaType)}, {"data", mustMarshal(im.Data)}}
	return mustMarshal(object{{"type", mustMarshal("image")}, {"source", mustMarshal(src)}})
}

func toolResult(r agent.ToolResult) json.RawMessage {
	var content []json.RawMessage
	if r.Text != "" {
		content = append(content, textBlock(r.Text))
	}
	for _, im := range r.Images {
		content = append(content, imageBlock(im))
	}
	o := object{{"type", mustMarshal("tool_result")}, {"tool_use_id", mustMarshal(sanitizeID(r.CallID))}}
	if len(content) > 0 {
		o = append(o, field{"content", mustMarshal(content)})
	}
	if r.IsError {
		o = append(o, field{"is_error", json.RawMessage("true")})
	}
	return mustMarshal(o)
}

// searchInput turns a native search's input into the client tool's.
func searchInput(in json.RawMessage) json.RawMessage {
	var s struct {
		Query   string `json:"query"`
		Pattern string `json:"pattern"`
		Limit   int    `json:"limit"`
	}
	_ = json.Unmarshal(in, &s)
	return clientInput(agent.SearchCall{Query: s.Query, Pattern: s.Pattern, Limit: s.Limit})
}

// clientInput is the input of a client search call as the model would have
// written it: a regular expression between slashes, as the client search
// reads one, so a search replayed (or carried over from native regex
// search or another provider) still says what it searched for.
func clientInput(c agent.SearchCall) json.RawMessage {
	q := c.Query
	if q == "" && c.Pattern != "" {
		q = "/" + c.Pattern + "/"
	}
	if q == "" && len(c.Names) > 0 {
		q = "select:" + strings.Join(c.Names, ",")
	}
	o := object{{"query", mustMarshal(q)}}
	if c.Limit > 0 {
		o = append(o, field{"limit", mustMarshal(c.Limit)})
	}
	return mustMarshal(o)
}

// mergeRoles joins consecutive messages of one role, which the API rejects,
// and puts a user message's tool_results before its other blocks.
func mergeRoles(in []wireMessage) []wireMessage {
	var out []wireMessage
	for _, m := range in {
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			out[n-1].Content = append(out[n-1].Content, m.Content...)
			continue
		}
		out = append(out, wireMessage{Role: m.Role, Content: append([]json.RawMessage(nil), m.Content...)})
	}
	for i := range out {
		if out[i].Role != "user" {
			continue
		}
		var results, rest []json.RawMessage
		for _, b := range out[i].Content {
			if blockType(b) == "tool_result" {
				results = append(results, b)
			} else {
				rest = append(rest, b)
			}
		}
		out[i].Content = append(results, rest...)
	}
	return out
}

// fixPairs makes every tool_use answered in the next user message and
// drops tool_results that answer nothing there: whatever the history went
// through (a crash, a cut stream, a switch of provider), the API gets a
// well-formed conversation.
func fixPairs(in []wireMessage) []wireMessage {
	for i := range in {
		if in[i].Role != "assistant" {
			continue
		}
		var ids []string
		for _, b := range in[i].Content {
			var bb block
			_ = json.Unmarshal(b, &bb)
			if bb.Type == "tool_use" {
				ids = append(ids, bb.ID)
			}
		}
		if i+1 >= len(in) {
			break
		}
		next := &in[i+1]
		answered := map[string]bool{}
		var kept []json.RawMessage
		want := map[string]bool{}
		for _, id := range ids {
			want[id] = true
		}
		for _, b := range next.Content {
			var bb block
			_ = json.Unmarshal(b, &bb)
			if bb.Type == "tool_result" {
				if !want[bb.ToolUseID] || answered[bb.ToolUseID] {
					continue
				}
				answered[bb.ToolUseID] = true
			}
			kept = append(kept, b)
		}
		var missing []json.RawMessage
		for _, id := range ids {
			if !answered[id] {
				missing = append(missing, toolResult(agent.ToolResult{CallID: id, Text: agent.InterruptedResult, IsError: true}))
			}
		}
		next.Content = append(missing, kept...)
	}
	// A user message that lost its tool_results after a dropped assistant
	// message must not keep them either.
	for i := range in {
		if in[i].Role != "user" || (i > 0 && in[i-1].Role == "assistant") {
			continue
		}
		var kept []json.RawMessage
		for _, b := range in[i].Content {
			if blockType(b) != "tool_result" {
				kept = append(kept, b)
			}
		}
		in[i].Content = kept
	}
	var out []wireMessage
	for _, m := range in {
		if len(m.Content) > 0 {
			out = append(out, m)
		}
	}
	return mergeRoles(out)
}
