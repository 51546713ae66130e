package openaichat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	toolschema "github.com/agent-dev/agent/tools/schema"
)

// outMsg is one rendered message plus what the final consistency pass needs.
type outMsg struct {
	data   json.RawMessage
	role   string
	calls  []string // assistant: tool call ids
	callID string   // tool: the call answered
}

// historyRenderer turns neutral history into Chat Completions messages.
type historyRenderer struct {
	p      *Provider
	model  string
	mode   agent.SearchMode
	active map[string]bool
	// defs finds a tool's definition for a search result.
	defs map[string]agent.ToolDef
	// providerResults holds every provider-side search result by call id, so
	// a result the provider sent in a later message can be answered right
	// after its call, where this API wants it.
	providerResults map[string]agent.SearchResult
	emitted         map[string]bool
	out             []outMsg
}

func (p *Provider) renderMessages(req *agent.Request, mode agent.SearchMode, active map[string]bool) ([]outMsg, error) {
	h := &historyRenderer{
		p: p, model: req.Model, mode: mode, active: active,
		defs:            make(map[string]agent.ToolDef, len(req.Tools)+len(req.Deferred)),
		providerResults: map[string]agent.SearchResult{},
		emitted:         map[string]bool{},
	}
	for _, t := range req.Tools {
		h.defs[t.Name] = t
	}
	for _, t := range req.Deferred {
		h.defs[t.Name] = t
	}
	for _, m := range req.Messages {
		for _, pt := range m.Parts {
			if pt.Type == agent.PartSearchResult && pt.SearchResult != nil && pt.SearchResult.Where == agent.WhereProvider {
				h.providerResults[pt.SearchResult.CallID] = *pt.SearchResult
			}
		}
	}
	if req.System != "" {
		if err := h.add("system", wireText{Role: "system", Content: req.System}, nil, ""); err != nil {
			return nil, err
		}
	}
	for i, m := range req.Messages {
		var err error
		switch m.Role {
		case agent.RoleUser:
			err = h.user(m)
		case agent.RoleAssistant:
			err = h.assistant(m)
		default:
			err = fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
	}
	return pairCalls(h.out), nil
}

func (h *historyRenderer) add(role string, v any, calls []string, callID string) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s message: %w", role, err)
	}
	h.out = append(h.out, outMsg{data: b, role: role, calls: calls, callID: callID})
	return nil
}

// user renders tool results first (they must directly follow the assistant
// message that called them), then any images they returned, then the text
// with the images the user attached.
func (h *historyRenderer) user(m agent.Message) error {
	var texts []string
	var images, attached []contentPart
	for _, pt := range m.Parts {
		switch {
		case pt.Type == agent.PartText:
			texts = append(texts, pt.Text)
		case pt.Type == agent.PartImage && pt.Image != nil:
			attached = append(attached, imagePart(*pt.Image))
		case pt.Type == agent.PartToolResult && pt.ToolResult != nil:
			r := pt.ToolResult
			text := r.Text
			if text == "" && len(r.Images) == 0 {
				// Some servers reject an empty tool message, and models
				// read nothing as "still running".
				text = "(no output)"
			}
			if r.IsError && !strings.HasPrefix(strings.ToLower(text), "error") {
				text = "Error: " + text
			}
			if len(r.Images) > 0 {
				text += fmt.Sprintf("\n[%d image(s) attached in the next message]", len(r.Images))
				images = append(images, contentPart{Type: "text", Text: "Images returned by " + r.Name + ":"})
				for _, im := range r.Images {
					images = append(images, imagePart(im))
				}
			}
			id := h.p.callID(r.CallID)
			if err := h.add("tool", wireTool{Role: "tool", ToolCallID: id, Content: text}, nil, id); err != nil {
				return err
			}
		case pt.Type == agent.PartSearchResult && pt.SearchResult != nil:
			if h.mode != agent.SearchClient || h.emitted[pt.SearchResult.CallID] {
				continue
			}
			if err := h.searchResult(*pt.SearchResult); err != nil {
				return err
			}
		}
	}
	if len(images) > 0 {
		if err := h.add("user", wireParts{Role: "user", Content: images}, nil, ""); err != nil {
			return err
		}
	}
	if len(attached) > 0 {
		// The text goes first, as the API's own examples have it.
		if len(texts) > 0 {
			attached = append([]contentPart{{Type: "text", Text: strings.Join(texts, "\n\n")}}, attached...)
		}
		return h.add("user", wireParts{Role: "user", Content: attached}, nil, "")
	}
	if len(texts) > 0 {
		return h.add("user", wireText{Role: "user", Content: strings.Join(texts, "\n\n")}, nil, "")
	}
	return nil
}

// imagePart is an image content part with its bytes in a data URL.
func imagePart(im agent.Image) contentPart {
	return contentPart{Type: "image_url", ImageURL: &imageURL{URL: "data:" + im.MediaType + ";base64," + im.Data}}
}

// searchResult answers a tool_search call with the found tools' full
// definitions: Chat Completions cannot load tools, so the schemas travel in
// the tool message and the model calls them through tool_call.
func (h *historyRenderer) searchResult(r agent.SearchResult) error {
	h.emitted[r.CallID] = true
	id := h.p.callID(r.CallID)
	return h.add("tool", wireTool{Role: "tool", ToolCallID: id, Content: h.searchContent(r)}, nil, id)
}

type foundTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

func (h *historyRenderer) searchContent(r agent.SearchResult) string {
	if r.Error != "" {
		b, _ := json.Marshal(map[string]string{"error": r.Error})
		return string(b)
	}
	found := []foundTool{}
	for _, n := range r.Tools {
		d, ok := h.defs[n]
		if !ok {
			continue
		}
		schema := d.Schema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		found = append(found, foundTool{Name: d.Name, Description: d.Description, Parameters: toolschema.For(string(h.p.caps(h.model).SchemaDialect), schema)})
	}
	v := struct {
		Tools []foundTool `json:"tools"`
		Note  string      `json:"note"`
	}{Tools: found}
	if len(found) == 0 {
		v.Note = "No tools matched. Try other keywords, a /regex/, or select:NAME."
	} else {
		v.Note = `Run a tool with tool_call {"name": NAME, "arguments": {...}}.`
	}
	b, err := json.Marshal(v)
	if err != nil {
		// A schema that is not valid JSON cannot be embedded; say so rather
		// than fail the whole request.
		return `{"error":"the found tools' schemas could not be encoded"}`
	}
	return string(b)
}

// assistant replays this adapter's own raw message when the current mode
// still fits it, and renders the neutral parts otherwise (another
// provider's message, or a search mode change).
func (h *historyRenderer) assistant(m agent.Message) error {
	if raw := m.RawFor(ProviderName, APIName); raw != nil {
		var w wireAssistant
		if err := json.Unmarshal(raw.Data, &w); err == nil && h.rawFits(w) {
			data := json.RawMessage(raw.Data)
			changed := false
			if h.p.opts.DropReasoning && w.ReasoningContent != "" {
				w.ReasoningContent, changed = "", true
			}
			if srv := serverOf(m); srv != h.p.opts.Name {
				// Opaque per-call fields (Gemini's thought signatures) mean
				// something to the server that made them only; another
				// server rejects the unknown member.
				for i := range w.ToolCalls {
					if len(w.ToolCalls[i].Extra) > 0 {
						w.ToolCalls[i].Extra, changed = nil, true
					}
				}
			}
			for i, c := range w.ToolCalls {
				// Another server behind the same wire format may have made
				// these ids; the results get the mapped ids too.
				if id := h.p.callID(c.ID); id != c.ID {
					w.ToolCalls[i].ID, changed = id, true
				}
			}
			if h.signFirst(w.ToolCalls) {
				changed = true
			}
			if h.keepReasoning() && len(w.ToolCalls) > 0 {
				data, changed = marshalKeep(w), false
			}
			if changed {
				data, _ = json.Marshal(w)
			}
			var ids []string
			for _, c := range w.ToolCalls {
				ids = append(ids, c.ID)
			}
			h.out = append(h.out, outMsg{data: data, role: "assistant", calls: ids})
			return nil
		}
	}
	var text strings.Builder
	var calls []wireCall
	var after []agent.SearchResult
	for _, pt := range m.Parts {
		switch {
		case pt.Type == agent.PartText:
			text.WriteString(pt.Text)
		case pt.Type == agent.PartToolCall && pt.ToolCall != nil:
			calls = append(calls, h.toolCall(*pt.ToolCall))
		case pt.Type == agent.PartSearchCall && pt.SearchCall != nil:
			if h.mode != agent.SearchClient {
				continue
			}
			c := pt.SearchCall
			args, _ := json.Marshal(searchArgs{Query: c.Text(), Limit: c.Limit})
			calls = append(calls, wireCall{ID: h.p.callID(c.ID), Type: "function", Function: wireFunc{Name: SearchTool, Arguments: string(args)}})
			if c.Where == agent.WhereProvider {
				// The provider ran it; its result (here or in a later
				// message) becomes the tool message right after this one.
				res, ok := h.providerResults[c.ID]
				if !ok {
					res = agent.SearchResult{CallID: c.ID, Where: agent.WhereProvider, Tools: []string{}, Error: "the search did not finish"}
				}
				after = append(after, res)
			}
		}
	}
	var ids []string
	for _, c := range calls {
		ids = append(ids, c.ID)
	}
	if text.Len() == 0 && len(calls) == 0 {
		// Only parts this API cannot express (another provider's server
		// tools): nothing to send.
		return nil
	}
	h.signFirst(calls)
	w := wireAssistant{Role: "assistant", ToolCalls: calls}
	if s := text.String(); s != "" || len(calls) == 0 {
		w.Content = &s
	}
	var v any = w
	if h.keepReasoning() && len(calls) > 0 {
		v = wireAssistantKeep(w)
	}
	if err := h.add("assistant", v, ids, ""); err != nil {
		return err
	}
	for _, r := range after {
		if err := h.searchResult(r); err != nil {
			return err
		}
	}
	return nil
}

type searchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

type callArgs struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// toolCall renders a neutral call: directly when the tool is in the tools
// array, wrapped in tool_call when it is a deferred tool reached through
// client-side search.
func (h *historyRenderer) toolCall(c agent.ToolCall) wireCall {
	input := c.Input
	if !json.Valid(input) {
		input = json.RawMessage(`{}`)
	}
	name, args := c.Name, string(input)
	wrap := h.mode == agent.SearchClient && !h.active[c.Name] && c.Name != SearchTool && c.Name != CallTool
	if wrap {
		b, _ := json.Marshal(callArgs{Name: c.Name, Arguments: input})
		name, args = CallTool, string(b)
	} else if h.active[c.Name] {
		name = wireName(c.Name)
	}
	return wireCall{ID: h.p.callID(c.ID), Type: "function", Function: wireFunc{Name: name, Arguments: args}}
}

// rawFits reports whether a stored assistant message is valid for the
// current mode: wrapper calls need client mode, and in client mode a direct
// call of a tool that is now deferred must be re-rendered as tool_call.
func (h *historyRenderer) rawFits(w wireAssistant) bool {
	for _, c := range w.ToolCalls {
		switch c.Function.Name {
		case SearchTool, CallTool:
			if h.mode != agent.SearchClient {
				return false
			}
		default:
			if h.mode == agent.SearchClient {
				if _, deferred := h.defs[c.Function.Name]; deferred && !h.active[c.Function.Name] {
					return false
				}
			}
		}
	}
	return true
}

// pairCalls is the last line of defence for the rule the real APIs enforce
// with a 400: every assistant tool call is answered by a tool message before
// the next other message, and every tool message answers such a call.
// Unanswered calls get a synthetic "interrupted" answer; stray or duplicate
// tool messages are dropped.
func pairCalls(in []outMsg) []outMsg {
	var out []outMsg
	for i := 0; i < len(in); i++ {
		m := in[i]
		if m.role == "tool" {
			continue // not directly after an assistant's calls: stray
		}
		out = append(out, m)
		if m.role != "assistant" || len(m.calls) == 0 {
			continue
		}
		want := map[string]bool{}
		for _, id := range m.calls {
			want[id] = true
		}
		for i+1 < len(in) && in[i+1].role == "tool" {
			i++
			t := in[i]
			if want[t.callID] {
				delete(want, t.callID)
				out = append(out, t)
			}
		}
		for _, id := range m.calls {
			if want[id] {
				delete(want, id)
				b, _ := json.Marshal(wireTool{Role: "tool", ToolCallID: id, Content: "Error: " + agent.InterruptedResult})
				out = append(out, outMsg{data: b, role: "tool", callID: id})
			}
		}
	}
	return out
}

// skipSignature is Google's documented value for a function call Gemini
// did not make (another provider's, or one whose signature is lost): it
// tells Gemini 3 to skip the thought signature check.
const skipSignature = "skip_thought_signature_validator"

// signFirst gives the first call of a step a thought signature when the
// model is Gemini 3 and the call has none (Gemini signs the first call of
// each step and rejects a step without it). It reports whether it did.
func (h *historyRenderer) signFirst(calls []wireCall) bool {
	c := h.p.caps(h.model)
	if len(calls) == 0 || c.Reasoning != models.ReasoningGemini || c.Thinking != models.ThinkingLevel {
		return false
	}
	if _, ok := calls[0].Extra["extra_content"]; ok {
		return false
	}
	if calls[0].Extra == nil {
		calls[0].Extra = map[string]json.RawMessage{}
	}
	calls[0].Extra["extra_content"] = json.RawMessage(`{"google":{"thought_signature":"` + skipSignature + `"}}`)
	return true
}

// keepReasoning reports whether assistant tool-call turns must carry
// reasoning_content, even empty: DeepSeek's thinking mode answers 400
// "Missing `reasoning_content` field" otherwise, for turns made by another
// provider too.
func (h *historyRenderer) keepReasoning() bool {
	c := h.p.caps(h.model)
	return c.Family == "deepseek" && c.Reasoning == models.ReasoningContent
}

func marshalKeep(w wireAssistant) json.RawMessage {
	b, _ := json.Marshal(wireAssistantKeep(w))
	return b
}
