package openaichat

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/internal/searchargs"
	"github.com/agent-dev/agent/providers/sse"
	toolschema "github.com/agent-dev/agent/tools/schema"
)

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	// DeepSeek reports cache hits in its own field.
	PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"`
}

// usage converts to the neutral form. InputTokens excludes cache reads, as
// on the other providers, so input + cache read is the whole prompt.
func (u *wireUsage) usage() agent.Usage {
	if u == nil {
		return agent.Usage{}
	}
	cached := u.PromptCacheHitTokens
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens > cached {
		cached = u.PromptTokensDetails.CachedTokens
	}
	if cached > u.PromptTokens {
		cached = u.PromptTokens
	}
	return agent.Usage{InputTokens: u.PromptTokens - cached, OutputTokens: u.CompletionTokens, CacheReadTokens: cached}
}

type deltaCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
		// Arguments is a string fragment on every server seen, but some
		// send a whole object; both are accepted.
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
	// Extra holds the call's other members (Gemini's extra_content with
	// its thought_signature, ...): opaque, replayed as they came.
	Extra map[string]json.RawMessage `json:"-"`
}

// knownCallFields are the members of a tool call this adapter reads.
var knownCallFields = map[string]bool{"index": true, "id": true, "type": true, "function": true}

func (d *deltaCall) UnmarshalJSON(b []byte) error {
	type plain deltaCall
	if err := json.Unmarshal(b, (*plain)(d)); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if json.Unmarshal(b, &all) != nil {
		return nil
	}
	for k, v := range all {
		if knownCallFields[k] || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			continue
		}
		if d.Extra == nil {
			d.Extra = map[string]json.RawMessage{}
		}
		d.Extra[k] = append(json.RawMessage(nil), v...)
	}
	return nil
}

type wireDelta struct {
	Content          *string     `json:"content"`
	ReasoningContent *string     `json:"reasoning_content"`
	ToolCalls        []deltaCall `json:"tool_calls"`
}

type wireChunk struct {
	Choices []struct {
		Index        int       `json:"index"`
		Delta        wireDelta `json:"delta"`
		Message      wireDelta `json:"message"`
		FinishReason *string   `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type callAcc struct {
	index    int
	id, name string
	args     strings.Builder
	extra    map[string]json.RawMessage
}

// accumulator assembles one assistant message from deltas split anywhere:
// calls are keyed by index, and id and name only come with the first piece.
type accumulator struct {
	text, reasoning strings.Builder
	calls           []*callAcc
	finish          string
	usage           *wireUsage
	cutCall         bool
}

func (a *accumulator) add(d wireDelta) {
	if d.Content != nil {
		a.text.WriteString(*d.Content)
	}
	if d.ReasoningContent != nil {
		a.reasoning.WriteString(*d.ReasoningContent)
	}
	for _, dc := range d.ToolCalls {
		c := a.slot(dc)
		if dc.ID != "" {
			c.id = dc.ID
		}
		c.name += dc.Function.Name
		c.args.WriteString(argText(dc.Function.Arguments))
		for k, v := range dc.Extra {
			if c.extra == nil {
				c.extra = map[string]json.RawMessage{}
			}
			c.extra[k] = v
		}
	}
}

// slot finds the call a delta continues. Without an index (some servers
// omit it), a new id starts a new call and anything else continues the last.
func (a *accumulator) slot(dc deltaCall) *callAcc {
	if dc.Index != nil {
		for _, c := range a.calls {
			if c.index == *dc.Index {
				return c
			}
		}
		c := &callAcc{index: *dc.Index}
		a.calls = append(a.calls, c)
		return c
	}
	if n := len(a.calls); n > 0 && (dc.ID == "" || dc.ID == a.calls[n-1].id) {
		return a.calls[n-1]
	}
	c := &callAcc{index: len(a.calls)}
	if n := len(a.calls); n > 0 {
		c.index = a.calls[n-1].index + 1
	}
	a.calls = append(a.calls, c)
	return c
}

func argText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// message builds the neutral message: text, the calls (tool_search and
// tool_call unwrapped in client mode) and the raw assistant message as it
// will be replayed. complete is false for a cut stream: then the calls,
// which may be half-streamed, are left out.
func (a *accumulator) message(r *rendered, complete bool) agent.Message {
	m := agent.Message{Role: agent.RoleAssistant, Interrupted: !complete}
	w := wireAssistant{Role: "assistant", ReasoningContent: a.reasoning.String()}
	if a.finish == "length" && len(a.calls) > 0 {
		// The output limit cut the last call: its arguments are half a
		// document. None of the calls is kept; the response is asked again.
		a.cutCall, complete = true, false
		m.Interrupted = false
	}
	text := a.text.String()
	if text != "" {
		m.Parts = append(m.Parts, agent.TextPart(text))
	}
	if complete {
		sort.SliceStable(a.calls, func(i, j int) bool { return a.calls[i].index < a.calls[j].index })
		for _, c := range a.calls {
			if c.id == "" {
				// Some servers (Gemini's compatibility layer, older
				// llama.cpp) send no id; results need one to match.
				c.id = newCallID()
			}
			args := c.args.String()
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			w.ToolCalls = append(w.ToolCalls, wireCall{ID: c.id, Type: "function", Function: wireFunc{Name: c.name, Arguments: args}, Extra: c.extra})
			m.Parts = append(m.Parts, neutralCall(c.id, c.name, args, r))
		}
	}
	if text != "" || len(w.ToolCalls) == 0 {
		w.Content = &text
	}
	if text == "" && len(w.ToolCalls) == 0 && w.ReasoningContent == "" {
		// Nothing arrived: no parts, so the core keeps nothing.
		return m
	}
	raw, _ := json.Marshal(w)
	m.Parts = append(m.Parts, agent.RawPart(ProviderName, APIName, raw))
	extras := false
	for _, c := range w.ToolCalls {
		extras = extras || len(c.Extra) > 0
	}
	if extras && r.server != "" {
		// Which server made the message: its opaque per-call fields go
		// back to it alone.
		srv, _ := json.Marshal(map[string]string{"server": r.server})
		m.Parts = append(m.Parts, agent.RawPart(ProviderName, serverAPI, srv))
	}
	return m
}

// serverAPI tags the raw part naming the server a message came from.
const serverAPI = APIName + ".server"

// serverOf is the server that made m, "" when unknown.
func serverOf(m agent.Message) string {
	raw := m.RawFor(ProviderName, serverAPI)
	if raw == nil {
		return ""
	}
	var v struct {
		Server string `json:"server"`
	}
	_ = json.Unmarshal(raw.Data, &v)
	return v.Server
}

// response assembles the neutral response.
func (a *accumulator) response(r *rendered, complete bool) *agent.Response {
	msg := a.message(r, complete)
	stop := stopReason(a.finish)
	return &agent.Response{Message: msg, Usage: a.usage.usage(), StopReason: stop, CutCall: a.cutCall,
		OutputLimit: r.maxTokens, OutputMax: r.maxOutput}
}

func newCallID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "call_" + hex.EncodeToString(b)
}

// neutralCall maps one wire call to its neutral part.
func neutralCall(id, name, args string, r *rendered) agent.Part {
	if r.mode == agent.SearchClient {
		switch name {
		case SearchTool:
			return agent.SearchCallPart(searchargs.Parse(id, []byte(args)))
		case CallTool:
			if c, ok := unwrapCall(id, args); ok {
				return agent.ToolCallPart(c)
			}
			// Unusable wrapper: keep it as is so the core answers with an
			// unknown-tool error the model can act on.
			return agent.ToolCallPart(agent.ToolCall{ID: id, Name: CallTool, Input: jsonInput(args)})
		}
	}
	if orig, ok := r.fromWire[name]; ok {
		name = orig
	}
	input := jsonInput(args)
	if sch, ok := r.geminiSchemas[name]; ok {
		// Free-form objects were declared as JSON text.
		input = toolschema.ArgsFromGemini(sch, input)
	}
	return agent.ToolCallPart(agent.ToolCall{ID: id, Name: name, Input: input})
}

// jsonInput keeps valid JSON as is; anything else becomes a JSON string so
// the message stays encodable and the schema check reports "must be an
// object" to the model.
func jsonInput(args string) json.RawMessage {
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}

// unwrapCall reads tool_call arguments. Models often send the inner
// arguments as a JSON string rather than an object; both are accepted.
func unwrapCall(id, args string) (agent.ToolCall, bool) {
	var a callArgs
	if err := json.Unmarshal([]byte(args), &a); err != nil || a.Name == "" {
		return agent.ToolCall{}, false
	}
	inner := bytes.TrimSpace(a.Arguments)
	switch {
	case len(inner) == 0 || bytes.Equal(inner, []byte("null")):
		inner = []byte(`{}`)
	case inner[0] == '"':
		var s string
		if err := json.Unmarshal(inner, &s); err != nil {
			return agent.ToolCall{}, false
		}
		if strings.TrimSpace(s) == "" {
			s = "{}"
		}
		inner = jsonInput(s)
	}
	return agent.ToolCall{ID: id, Name: a.Name, Input: json.RawMessage(inner)}, true
}

// parseStream reads the SSE chunks. On an early end it returns what arrived
// (text only, marked interrupted) and an error saying the stream was cut.
func (p *Provider) parseStream(body io.Reader, r *rendered, emit func(agent.StreamEvent)) (*agent.Response, error) {
	acc := &accumulator{}
	rd := sse.NewReader(body)
	cut := func(err error) (*agent.Response, error) {
		return acc.response(r, false), fmt.Errorf("%s: %w: %w", p.opts.Name, errStreamCut, err)
	}
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			if acc.finish != "" {
				// Some servers end without [DONE] after a finish reason.
				break
			}
			return cut(io.ErrUnexpectedEOF)
		}
		if err != nil {
			return cut(err)
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 {
			continue
		}
		if string(data) == "[DONE]" {
			break
		}
		var ch wireChunk
		if err := json.Unmarshal(data, &ch); err != nil {
			return cut(fmt.Errorf("bad chunk %.200q: %w", data, err))
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" {
			typ, msg := parseErrorBody(data)
			return cut(&agent.APIError{Provider: p.opts.Name, Type: typ, Message: msg})
		}
		if ch.Usage != nil {
			acc.usage = ch.Usage
		}
		for _, c := range ch.Choices {
			if c.Index != 0 {
				continue
			}
			if c.Delta.Content != nil && *c.Delta.Content != "" {
				emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: *c.Delta.Content})
			}
			if c.Delta.ReasoningContent != nil && *c.Delta.ReasoningContent != "" {
				emit(agent.StreamEvent{Type: agent.EventReasoningDelta, Text: *c.Delta.ReasoningContent})
			}
			acc.add(c.Delta)
			if c.FinishReason != nil && *c.FinishReason != "" {
				acc.finish = *c.FinishReason
			}
		}
	}
	return acc.response(r, true), nil
}

// parseJSON reads a non-streaming answer.
func (p *Provider) parseJSON(body io.Reader, r *rendered) (*agent.Response, error) {
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, fmt.Errorf("%s: read response: %w", p.opts.Name, err)
	}
	var ch wireChunk
	if err := json.Unmarshal(b, &ch); err != nil {
		return nil, fmt.Errorf("%s: decode response %.200q: %w", p.opts.Name, b, err)
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		typ, msg := parseErrorBody(b)
		return nil, &agent.APIError{Provider: p.opts.Name, Type: typ, Message: msg}
	}
	acc := &accumulator{usage: ch.Usage}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue
		}
		// A whole message: give calls without an index their position.
		for i := range c.Message.ToolCalls {
			if c.Message.ToolCalls[i].Index == nil {
				c.Message.ToolCalls[i].Index = &i
			}
		}
		acc.add(c.Message)
		if c.FinishReason != nil {
			acc.finish = *c.FinishReason
		}
	}
	return acc.response(r, true), nil
}

// stopReason maps a finish_reason to the neutral stop reason.
func stopReason(s string) agent.StopReason {
	switch s {
	case "tool_calls", "function_call":
		return agent.StopToolUse
	case "length":
		return agent.StopMaxTokens
	case "content_filter":
		return agent.StopRefused
	}
	return agent.StopEnd
}
