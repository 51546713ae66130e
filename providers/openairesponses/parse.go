package openairesponses

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/sse"
)

type parseContext struct {
	// fnSearch: the request used the function-based client search, so calls
	// of tool_search / tool_call are searches and wrapped calls.
	fnSearch  bool
	requestID string
	// origin stamps an answer that holds reasoning items (origin.go).
	origin string
}

// item is the subset of an output item's fields the adapter reads. The item
// itself is always kept verbatim; this view is for the neutral parts only.
type item struct {
	Type        string            `json:"type"`
	ID          string            `json:"id"`
	Status      string            `json:"status"`
	Role        string            `json:"role"`
	CallID      *string           `json:"call_id"`
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	Execution   string            `json:"execution"`
	Arguments   json.RawMessage   `json:"arguments"`
	Content     []contentPart     `json:"content"`
	Tools       []json.RawMessage `json:"tools"`
	Action      json.RawMessage   `json:"action"`
	ServerLabel string            `json:"server_label"`
	Output      json.RawMessage   `json:"output"`
	Error       json.RawMessage   `json:"error"`
	Code        string            `json:"code"`
	ContainerID string            `json:"container_id"`
	Outputs     json.RawMessage   `json:"outputs"`
	Summary     []contentPart     `json:"summary"`
}

type contentPart struct {
	Type        string       `json:"type"`
	Text        string       `json:"text"`
	Refusal     string       `json:"refusal"`
	Annotations []annotation `json:"annotations"`
}

type annotation struct {
	Type  string `json:"type"`
	URL   string `json:"url"`
	Title string `json:"title"`
}

type responseObj struct {
	ID                string            `json:"id"`
	Status            string            `json:"status"`
	Output            []json.RawMessage `json:"output"`
	Usage             *usageObj         `json:"usage"`
	Error             *errorObj         `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

type usageObj struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
}

type errorObj struct {
	Code    string `json:"code"`
	Type    string `json:"type"`
	Message string `json:"message"`
}

// assembler turns completed output items into neutral parts, in order.
type assembler struct {
	pc         parseContext
	emit       func(agent.StreamEvent)
	emitText   bool
	items      map[int]json.RawMessage
	parts      map[int][]agent.Part
	lastSearch string
	resp       *responseObj
	// cutCall is set when a function call was cut off by the output limit
	// (status incomplete); it is left out of the message.
	cutCall bool
}

func newAssembler(pc parseContext, emit func(agent.StreamEvent), emitText bool) *assembler {
	return &assembler{pc: pc, emit: emit, emitText: emitText, items: map[int]json.RawMessage{}, parts: map[int][]agent.Part{}}
}

// add records the completed item at output index idx and reports its events.
func (a *assembler) add(idx int, raw json.RawMessage) {
	raw = append(json.RawMessage(nil), raw...)
	var head struct {
		Type, Status string
	}
	if json.Unmarshal(raw, &head) == nil && head.Type == "function_call" && head.Status == "incomplete" {
		// Half its arguments: it cannot run, and replaying it would only
		// ask for an output nobody can give.
		a.cutCall = true
		return
	}
	a.items[idx] = raw
	ps := a.itemParts(raw)
	a.parts[idx] = ps
	for _, p := range ps {
		switch p.Type {
		case agent.PartText:
			if a.emitText {
				a.emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: p.Text})
			}
		case agent.PartSearchCall:
			if p.SearchCall.Where == agent.WhereProvider {
				a.emit(agent.StreamEvent{Type: agent.EventSearchStarted, SearchCall: p.SearchCall})
			}
		case agent.PartSearchResult:
			a.emit(agent.StreamEvent{Type: agent.EventSearchFinished, SearchResult: p.SearchResult})
		case agent.PartServerTool:
			a.emit(agent.StreamEvent{Type: agent.EventServerTool, ServerTool: p.ServerTool})
		}
	}
}

func (a *assembler) itemParts(raw json.RawMessage) []agent.Part {
	var it item
	if err := json.Unmarshal(raw, &it); err != nil {
		return nil
	}
	callID := ""
	if it.CallID != nil {
		callID = *it.CallID
	}
	switch it.Type {
	case "message":
		var ps []agent.Part
		for _, c := range it.Content {
			switch {
			case c.Type == "output_text" && c.Text != "":
				ps = append(ps, agent.TextPart(c.Text))
			case c.Type == "refusal" && c.Refusal != "":
				ps = append(ps, agent.TextPart(c.Refusal))
			}
		}
		return ps
	case "function_call":
		if a.pc.fnSearch {
			switch it.Name {
			case fnSearchName:
				sc := searchArgs(argsObject(it.Arguments))
				sc.ID, sc.Where = callID, agent.WhereClient
				return []agent.Part{agent.SearchCallPart(sc)}
			case fnCallName:
				var w struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				}
				_ = json.Unmarshal(argsObject(it.Arguments), &w)
				in := w.Arguments
				if s := jsonString(in); s != "" { // arguments sent as a JSON string
					in = json.RawMessage(s)
				}
				if len(in) == 0 {
					in = json.RawMessage(`{}`)
				}
				return []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: callID, Name: w.Name, Input: in})}
			}
		}
		return []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: callID, Name: it.Name, Input: argsObject(it.Arguments)})}
	case "tool_search_call":
		sc := searchArgs(it.Arguments)
		if it.Execution == "client" {
			sc.ID, sc.Where = callID, agent.WhereClient
		} else {
			sc.ID, sc.Where = it.ID, agent.WhereProvider
			a.lastSearch = it.ID
		}
		return []agent.Part{agent.SearchCallPart(sc)}
	case "tool_search_output":
		id := callID
		if it.Execution != "client" {
			id = a.lastSearch
		}
		return []agent.Part{agent.SearchResultPart(agent.SearchResult{CallID: id, Where: agent.WhereProvider, Tools: loadedNames(it.Tools)})}
	case "reasoning":
		if a.emitText {
			for _, sm := range it.Summary {
				if sm.Text != "" {
					a.emit(agent.StreamEvent{Type: agent.EventReasoningDelta, Text: sm.Text + "\n"})
				}
			}
		}
		return nil
	case "web_search_call":
		st := agent.ServerTool{ID: it.ID, Name: "web_search", Input: it.Action, IsError: it.Status == "failed"}
		var act struct {
			Sources []agent.Source `json:"sources"`
		}
		_ = json.Unmarshal(it.Action, &act)
		st.Sources = dedupeSources(nil, act.Sources)
		return []agent.Part{agent.ServerToolPart(st)}
	case "code_interpreter_call":
		in, _ := json.Marshal(map[string]string{"code": it.Code, "container_id": it.ContainerID})
		return []agent.Part{agent.ServerToolPart(agent.ServerTool{ID: it.ID, Name: "code_interpreter", Input: in, Result: nonNull(it.Outputs), IsError: it.Status == "failed"})}
	case "mcp_call":
		st := agent.ServerTool{ID: it.ID, Name: mcpName(it.ServerLabel, it.Name), Input: argsObject(it.Arguments), Result: textOrJSON(it.Output)}
		if e := nonNull(it.Error); e != nil {
			st.IsError, st.Result = true, textOrJSON(e)
		}
		return []agent.Part{agent.ServerToolPart(st)}
	case "mcp_list_tools":
		in, _ := json.Marshal(map[string]string{"server_label": it.ServerLabel})
		return []agent.Part{agent.ServerToolPart(agent.ServerTool{ID: it.ID, Name: "mcp_list_tools", Input: in, Result: loadedList(it.Tools), IsError: nonNull(it.Error) != nil})}
	case "mcp_approval_request":
		return []agent.Part{agent.ServerToolPart(agent.ServerTool{ID: it.ID, Name: mcpName(it.ServerLabel, it.Name), Input: argsObject(it.Arguments), Pending: true})}
	}
	if strings.HasSuffix(it.Type, "_call") { // other hosted tools: image_generation_call, file_search_call…
		return []agent.Part{agent.ServerToolPart(agent.ServerTool{ID: it.ID, Name: strings.TrimSuffix(it.Type, "_call"), IsError: it.Status == "failed"})}
	}
	return nil
}

func mcpName(label, name string) string {
	if label == "" {
		return name
	}
	return label + "." + name
}

// argsObject returns function arguments as JSON: they arrive as a string.
func argsObject(a json.RawMessage) json.RawMessage {
	if s := jsonString(a); s != "" || string(a) == `""` {
		if s == "" {
			return json.RawMessage(`{}`)
		}
		return json.RawMessage(s)
	}
	if len(a) == 0 || string(a) == "null" {
		return json.RawMessage(`{}`)
	}
	return a
}

func textOrJSON(r json.RawMessage) json.RawMessage {
	if r = nonNull(r); r == nil {
		return nil
	}
	if s := jsonString(r); s != "" && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return r
}

func nonNull(r json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(r); len(t) == 0 || string(t) == "null" {
		return nil
	}
	return r
}

// searchArgs reads a tool_search_call's arguments: hosted calls select by
// paths; client calls use our {query, limit} schema, and other clients'
// shapes (queries, goal) are read leniently.
func searchArgs(raw json.RawMessage) agent.SearchCall {
	var sc agent.SearchCall
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return sc
	}
	var paths []string
	if json.Unmarshal(m["paths"], &paths) == nil && len(paths) > 0 {
		sc.Names = paths
	}
	_ = json.Unmarshal(m["limit"], &sc.Limit)
	if q := jsonString(m["query"]); q != "" {
		sc.Query = q
		return sc
	}
	var qs []string
	if json.Unmarshal(m["queries"], &qs) == nil && len(qs) > 0 {
		sc.Query = strings.Join(qs, " ")
		return sc
	}
	if sc.Names != nil {
		return sc
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var words []string
	for _, k := range keys {
		if s := jsonString(m[k]); s != "" {
			words = append(words, s)
		}
	}
	sc.Query = strings.Join(words, " ")
	return sc
}

// loadedNames lists the callable tools a tool_search_output loaded: function
// names, and the member names of loaded namespaces.
func loadedNames(tools []json.RawMessage) []string {
	names := []string{}
	for _, t := range tools {
		var d struct {
			Type        string `json:"type"`
			Name        string `json:"name"`
			ServerLabel string `json:"server_label"`
			Tools       []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if json.Unmarshal(t, &d) != nil {
			continue
		}
		switch {
		case d.Type == "namespace":
			for _, m := range d.Tools {
				names = append(names, m.Name)
			}
		case d.Type == "mcp":
			names = append(names, d.ServerLabel)
		case d.Name != "":
			names = append(names, d.Name)
		}
	}
	return names
}

func loadedList(tools []json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(loadedNames(tools))
	return b
}

func dedupeSources(have, add []agent.Source) []agent.Source {
	seen := map[string]int{}
	for i, s := range have {
		seen[s.URL] = i
	}
	for _, s := range add {
		if s.URL == "" {
			continue
		}
		if i, ok := seen[s.URL]; ok {
			if have[i].Title == "" { // a citation names a source the search listed bare
				have[i].Title = s.Title
			}
			continue
		}
		seen[s.URL] = len(have)
		have = append(have, agent.Source{URL: s.URL, Title: s.Title})
	}
	return have
}

// finish builds the response from the items completed so far.
func (a *assembler) finish() *agent.Response {
	idx := make([]int, 0, len(a.items))
	for i := range a.items {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	msg := agent.Message{Role: agent.RoleAssistant}
	var raws [][]byte
	var cites []agent.Source
	reasoning := false
	usage := agent.Usage{}
	for _, i := range idx {
		raws = append(raws, a.items[i])
		msg.Parts = append(msg.Parts, a.parts[i]...)
		var it item
		_ = json.Unmarshal(a.items[i], &it)
		reasoning = reasoning || it.Type == "reasoning"
		if it.Type == "message" {
			for _, c := range it.Content {
				for _, an := range c.Annotations {
					if an.Type == "url_citation" {
						cites = append(cites, agent.Source{URL: an.URL, Title: an.Title})
					}
				}
			}
		}
	}
	stop := agent.StopEnd
	for _, p := range msg.Parts {
		switch {
		case p.Type == agent.PartServerTool && p.ServerTool.Name == "web_search":
			addUse(&usage, "web_search_requests")
		case p.Type == agent.PartServerTool && p.ServerTool.Name == "code_interpreter":
			addUse(&usage, "code_interpreter_calls")
		case p.Type == agent.PartToolCall,
			p.Type == agent.PartSearchCall && p.SearchCall.Where == agent.WhereClient,
			p.Type == agent.PartServerTool && p.ServerTool.Pending:
			stop = agent.StopToolUse
		}
	}
	if len(cites) > 0 {
		attachCitations(&msg, cites)
	}
	if len(raws) > 0 {
		data := append([]byte{'['}, bytes.Join(raws, []byte{','})...)
		msg.Parts = append(msg.Parts, agent.RawPart("openai", "responses", append(data, ']')))
		if reasoning && a.pc.origin != "" {
			msg.Parts = append(msg.Parts, originPart(a.pc.origin))
		}
	}
	resp := &agent.Response{Message: msg, StopReason: stop}
	if r := a.resp; r != nil {
		if r.Usage != nil {
			// OpenAI counts cached tokens inside input_tokens; the neutral
			// Usage keeps them apart (see agent.Usage).
			usage.CacheReadTokens = r.Usage.InputTokensDetails.CachedTokens
			usage.InputTokens = max(0, r.Usage.InputTokens-usage.CacheReadTokens)
			usage.OutputTokens = r.Usage.OutputTokens
		}
		if r.Status == "incomplete" && r.IncompleteDetails != nil {
			switch r.IncompleteDetails.Reason {
			case "max_output_tokens":
				resp.StopReason = agent.StopMaxTokens
			case "content_filter":
				resp.StopReason = agent.StopRefused
			}
		}
	}
	resp.CutCall = a.cutCall
	resp.Usage = usage
	return resp
}

func addUse(u *agent.Usage, k string) {
	if u.ServerToolUses == nil {
		u.ServerToolUses = map[string]int{}
	}
	u.ServerToolUses[k]++
}

// attachCitations puts the answer's url_citation sources on the last web
// search of the message, or on a "citations" server tool part when the
// message has no web search (citations from file search, or a search that
// ran in an earlier response).
func attachCitations(m *agent.Message, cites []agent.Source) {
	for i := len(m.Parts) - 1; i >= 0; i-- {
		if p := m.Parts[i]; p.Type == agent.PartServerTool && p.ServerTool.Name == "web_search" {
			p.ServerTool.Sources = dedupeSources(p.ServerTool.Sources, cites)
			return
		}
	}
	m.Parts = append(m.Parts, agent.ServerToolPart(agent.ServerTool{ID: "citations", Name: "citations", Sources: dedupeSources(nil, cites)}))
}

// parseJSON reads a non-streaming response.
func parseJSON(body io.Reader, pc parseContext, emit func(agent.StreamEvent)) (*agent.Response, error) {
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, fmt.Errorf("read openai response: %w", err)
	}
	var r responseObj
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("decode openai response: %w", err)
	}
	a := newAssembler(pc, emit, true)
	a.resp = &r
	for i, raw := range r.Output {
		a.add(i, raw)
	}
	resp := a.finish()
	if r.Status == "failed" {
		return resp, failedError(r.Error, pc.requestID)
	}
	return resp, nil
}

func failedError(e *errorObj, reqID string) error {
	ae := &agent.APIError{Provider: "openai", RequestID: reqID, Type: "response_failed", Message: "the response failed"}
	if e != nil {
		ae.Type, ae.Message = firstNonEmpty(e.Code, e.Type, ae.Type), firstNonEmpty(e.Message, ae.Message)
		if e.Code == "server_error" || e.Code == "rate_limit_exceeded" {
			ae.Status = 500 // retryable by the core when nothing streamed yet
			if e.Code == "rate_limit_exceeded" {
				ae.Status = 429
			}
		}
	}
	return ae
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// streamEvent is the union of the SSE event payloads the adapter reads.
type streamEvent struct {
	Type        string          `json:"type"`
	OutputIndex *int            `json:"output_index"`
	Item        json.RawMessage `json:"item"`
	Delta       string          `json:"delta"`
	Response    *responseObj    `json:"response"`
	Code        string          `json:"code"`
	Message     string          `json:"message"`
	Error       *errorObj       `json:"error"`
}

// parseStream reads the SSE stream. Items are taken from
// response.output_item.done only: .added can carry a different call_id.
func parseStream(ctx context.Context, body io.Reader, pc parseContext, emit func(agent.StreamEvent)) (*agent.Response, error) {
	a := newAssembler(pc, emit, false)
	rd := sse.NewReader(body)
	cut := func(err error) (*agent.Response, error) {
		resp := a.finish()
		resp.Message.Interrupted = true
		if ctx.Err() != nil {
			return resp, fmt.Errorf("openai stream cut: %w", ctx.Err())
		}
		return resp, fmt.Errorf("openai stream cut before the response completed: %w", err)
	}
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return cut(io.ErrUnexpectedEOF)
		}
		if err != nil {
			return cut(err)
		}
		if len(bytes.TrimSpace(ev.Data)) == 0 || string(ev.Data) == "[DONE]" {
			continue
		}
		var se streamEvent
		if err := json.Unmarshal(ev.Data, &se); err != nil {
			return cut(fmt.Errorf("bad event %q: %w", ev.Name, err))
		}
		if se.Type == "" {
			se.Type = ev.Name
		}
		switch se.Type {
		case "response.output_text.delta", "response.refusal.delta":
			if se.Delta != "" {
				emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: se.Delta})
			}
		case "response.reasoning_summary_text.delta":
			if se.Delta != "" {
				emit(agent.StreamEvent{Type: agent.EventReasoningDelta, Text: se.Delta})
			}
		case "response.reasoning_summary_text.done":
			emit(agent.StreamEvent{Type: agent.EventReasoningDelta, Text: "\n"})
		case "response.output_item.done":
			idx := len(a.items)
			if se.OutputIndex != nil {
				idx = *se.OutputIndex
			}
			a.add(idx, se.Item)
		case "response.completed", "response.incomplete":
			a.resp = se.Response
			if se.Response != nil && len(a.items) == 0 {
				for i, raw := range se.Response.Output {
					a.add(i, raw)
				}
			}
			return a.finish(), nil
		case "response.failed":
			resp := a.finish()
			resp.Message.Interrupted = true
			var e *errorObj
			if se.Response != nil {
				e = se.Response.Error
			}
			return resp, fmt.Errorf("openai stream failed: %w", failedError(e, pc.requestID))
		case "error":
			resp := a.finish()
			resp.Message.Interrupted = true
			e := se.Error
			if e == nil {
				e = &errorObj{Code: se.Code, Message: se.Message}
			}
			return resp, fmt.Errorf("openai stream error: %w", failedError(e, pc.requestID))
		}
	}
}
