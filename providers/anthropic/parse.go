package anthropic

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/internal/searchargs"
)

// contentParser turns finished content blocks into neutral parts, in
// order, and reports them as they complete. The stream and the
// non-streaming body both feed it whole blocks.
type contentParser struct {
	req   *agent.Request
	emit  func(agent.StreamEvent)
	parts []agent.Part
	raws  []json.RawMessage
	// emitText is set for non-streaming bodies, whose text arrives whole.
	emitText bool
	// fnSearch: calls of tool_call run the deferred tool they name.
	fnSearch bool
	// container is the code-execution container the response ran in.
	container *wireContainer
}

// wireContainer is the code-execution container of a response; the next
// request names it so the files written there are still there.
type wireContainer struct {
	ID        string `json:"id"`
	ExpiresAt string `json:"expires_at"`
}

// containerAPI tags the raw part that keeps a response's container.
const containerAPI = apiName + ".container"

// containerOf is the container of the latest response that ran in one,
// unless it has expired.
func containerOf(msgs []agent.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		raw := msgs[i].RawFor(providerName, containerAPI)
		if raw == nil {
			continue
		}
		var c wireContainer
		if json.Unmarshal(raw.Data, &c) != nil || c.ID == "" {
			return ""
		}
		if t, err := time.Parse(time.RFC3339, c.ExpiresAt); err == nil && time.Now().After(t) {
			return ""
		}
		return c.ID
	}
	return ""
}

func (p *contentParser) isCallTool(name string) bool {
	if !p.fnSearch || name != CallTool {
		return false
	}
	for _, d := range p.req.Tools {
		if d.Name == name {
			return false
		}
	}
	return true
}

type wireCitation struct {
	Type  string `json:"type"`
	URL   string `json:"url"`
	Title string `json:"title"`
}

type wireSearchResultContent struct {
	Type           string `json:"type"`
	ToolReferences []struct {
		ToolName string `json:"tool_name"`
	} `json:"tool_references"`
	ErrorCode    string `json:"error_code"`
	ErrorMessage string `json:"error_message"`
}

func (p *contentParser) isClientSearch(name string) bool {
	if name != ClientSearchTool {
		return false
	}
	for _, d := range p.req.Tools {
		if d.Name == name {
			return false // a user tool that happens to share the name
		}
	}
	return true
}

// add takes one complete block (compact JSON).
func (p *contentParser) add(raw json.RawMessage) {
	p.raws = append(p.raws, raw)
	var b block
	if err := json.Unmarshal(raw, &b); err != nil {
		return
	}
	switch {
	case b.Type == "text":
		var t struct {
			Text      string         `json:"text"`
			Citations []wireCitation `json:"citations"`
		}
		_ = json.Unmarshal(raw, &t)
		if p.emitText && t.Text != "" {
			p.emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: t.Text})
		}
		p.parts = appendText(p.parts, t.Text)
		var srcs []agent.Source
		for _, c := range t.Citations {
			if c.URL != "" {
				srcs = append(srcs, agent.Source{URL: c.URL, Title: c.Title})
			}
		}
		p.cite(srcs)
	case b.Type == "thinking":
		if p.emitText {
			var t struct {
				Thinking string `json:"thinking"`
			}
			_ = json.Unmarshal(raw, &t)
			if t.Thinking != "" {
				p.emit(agent.StreamEvent{Type: agent.EventReasoningDelta, Text: t.Thinking})
			}
		}
	case b.Type == "tool_use" && p.isClientSearch(b.Name):
		p.parts = append(p.parts, agent.SearchCallPart(searchargs.Parse(b.ID, b.Input)))
	case b.Type == "tool_use" && p.isCallTool(b.Name):
		var w struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		_ = json.Unmarshal(b.Input, &w)
		in := w.Arguments
		var s string
		if json.Unmarshal(in, &s) == nil && json.Valid([]byte(s)) { // arguments sent as a JSON string
			in = json.RawMessage(s)
		}
		if len(in) == 0 || string(in) == "null" {
			in = json.RawMessage(`{}`)
		}
		p.parts = append(p.parts, agent.ToolCallPart(agent.ToolCall{ID: b.ID, Name: w.Name, Input: compact(in)}))
	case b.Type == "tool_use":
		in := b.Input
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		p.parts = append(p.parts, agent.ToolCallPart(agent.ToolCall{ID: b.ID, Name: b.Name, Input: in}))
	case b.isSearchUse():
		var in struct {
			Query   string `json:"query"`
			Pattern string `json:"pattern"`
			Limit   int    `json:"limit"`
		}
		_ = json.Unmarshal(b.Input, &in)
		c := agent.SearchCall{ID: b.ID, Where: agent.WhereProvider, Query: in.Query, Pattern: in.Pattern, Limit: in.Limit}
		p.parts = append(p.parts, agent.SearchCallPart(c))
		p.emit(agent.StreamEvent{Type: agent.EventSearchStarted, SearchCall: &c})
	case b.isSearchResult():
		r := agent.SearchResult{CallID: b.ToolUseID, Where: agent.WhereProvider, Tools: []string{}}
		var c wireSearchResultContent
		_ = json.Unmarshal(b.Content, &c)
		for _, ref := range c.ToolReferences {
			r.Tools = append(r.Tools, ref.ToolName)
		}
		if c.Type == "tool_search_tool_result_error" || c.ErrorCode != "" {
			r.Error = c.ErrorCode
			if c.ErrorMessage != "" {
				r.Error += ": " + c.ErrorMessage
			}
		}
		p.parts = append(p.parts, agent.SearchResultPart(r))
		p.emit(agent.StreamEvent{Type: agent.EventSearchFinished, SearchResult: &r})
	case b.isUse():
		name := b.Name
		if b.Type == "mcp_tool_use" {
			var s struct {
				ServerName string `json:"server_name"`
			}
			_ = json.Unmarshal(raw, &s)
			if s.ServerName != "" {
				name = s.ServerName + "/" + b.Name
			}
		}
		p.parts = append(p.parts, agent.ServerToolPart(agent.ServerTool{ID: b.ID, Name: name, Input: b.Input}))
	case b.isResult():
		p.serverResult(b, raw)
	}
}

// serverResult completes the server tool call a result answers; a result
// that opens a response (its call was in the previous one) stands alone.
func (p *contentParser) serverResult(b block, raw json.RawMessage) {
	var st *agent.ServerTool
	for i := len(p.parts) - 1; i >= 0; i-- {
		if s := p.parts[i].ServerTool; s != nil && s.ID == b.ToolUseID {
			st = s
			break
		}
	}
	if st == nil {
		p.parts = append(p.parts, agent.ServerToolPart(agent.ServerTool{ID: b.ToolUseID, Name: strings.TrimSuffix(b.Type, "_tool_result")}))
		st = p.parts[len(p.parts)-1].ServerTool
	}
	st.Result = b.Content
	var flag struct {
		IsError bool `json:"is_error"`
	}
	_ = json.Unmarshal(raw, &flag)
	st.IsError = flag.IsError || resultIsError(b.Content)
	// web_search results list their pages; web_fetch names the one it read.
	var items []struct {
		Type  string `json:"type"`
		URL   string `json:"url"`
		Title string `json:"title"`
	}
	if json.Unmarshal(b.Content, &items) == nil {
		for _, it := range items {
			if it.URL != "" {
				st.Sources = addSource(st.Sources, agent.Source{URL: it.URL, Title: it.Title})
			}
		}
	} else {
		var one struct {
			Type    string `json:"type"`
			URL     string `json:"url"`
			Content struct {
				Title string `json:"title"`
			} `json:"content"`
		}
		if json.Unmarshal(b.Content, &one) == nil && one.Type == "web_fetch_result" && one.URL != "" {
			st.Sources = addSource(st.Sources, agent.Source{URL: one.URL, Title: one.Content.Title})
		}
	}
	ev := *st
	p.emit(agent.StreamEvent{Type: agent.EventServerTool, ServerTool: &ev})
}

// resultIsError spots the *_error content types server tools answer with.
func resultIsError(content json.RawMessage) bool {
	var c struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(content, &c) == nil && strings.HasSuffix(c.Type, "_error")
}

// cite adds citation sources to the latest server tool of the message
// that fetched pages, each URL once.
func (p *contentParser) cite(srcs []agent.Source) {
	if len(srcs) == 0 {
		return
	}
	for i := len(p.parts) - 1; i >= 0; i-- {
		if s := p.parts[i].ServerTool; s != nil && (strings.Contains(s.Name, "web_search") || strings.Contains(s.Name, "web_fetch")) {
			for _, src := range srcs {
				s.Sources = addSource(s.Sources, src)
			}
			return
		}
	}
}

func addSource(list []agent.Source, s agent.Source) []agent.Source {
	for i, x := range list {
		if x.URL == s.URL {
			if list[i].Title == "" {
				list[i].Title = s.Title
			}
			return list
		}
	}
	return append(list, s)
}

func appendText(ps []agent.Part, t string) []agent.Part {
	if t == "" {
		return ps
	}
	if n := len(ps); n > 0 && ps[n-1].Type == agent.PartText {
		ps[n-1].Text += t
		return ps
	}
	return append(ps, agent.TextPart(t))
}

// message assembles the assistant message: the neutral parts and one raw
// part holding the content array exactly as the blocks arrived.
func (p *contentParser) message() agent.Message {
	m := agent.Message{Role: agent.RoleAssistant, Parts: append([]agent.Part(nil), p.parts...)}
	if len(p.raws) > 0 {
		m.Parts = append(m.Parts, agent.RawPart(providerName, apiName, mustMarshal(p.raws)))
	}
	if p.container != nil && p.container.ID != "" {
		m.Parts = append(m.Parts, agent.RawPart(providerName, containerAPI, mustMarshal(p.container)))
	}
	return m
}

// wireUsage is the usage object of message_start, message_delta and the
// non-streaming body; message_delta repeats only what changed.
type wireUsage struct {
	InputTokens   *int           `json:"input_tokens"`
	OutputTokens  *int           `json:"output_tokens"`
	CacheCreation *int           `json:"cache_creation_input_tokens"`
	CacheRead     *int           `json:"cache_read_input_tokens"`
	ServerToolUse map[string]any `json:"server_tool_use"`
}

func (w *wireUsage) apply(u *agent.Usage) {
	if w == nil {
		return
	}
	set := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	set(&u.InputTokens, w.InputTokens)
	set(&u.OutputTokens, w.OutputTokens)
	set(&u.CacheWriteTokens, w.CacheCreation)
	set(&u.CacheReadTokens, w.CacheRead)
	for k, v := range w.ServerToolUse {
		n, ok := v.(float64)
		if !ok || n == 0 {
			continue
		}
		if u.ServerToolUses == nil {
			u.ServerToolUses = map[string]int{}
		}
		u.ServerToolUses[k] = int(n)
	}
}
