package anthropictest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Script is a tiny deterministic "model": each Turn answers one step of the
// conversation. It adapts to how the request offers tool search: with the
// native search tool it searches server-side (bm25 or regex over the
// deferred tools) in the same response; with the client `tool_search` tool
// it calls that tool, waits for the tool_result, then goes on with the
// same turn; with no search tool it skips the search.
type Script struct {
	Turns []Turn

	mu   sync.Mutex
	next int
	// searched is set while a turn waits for its client search result.
	searched bool
}

// Turn is one model step.
type Turn struct {
	// Text is said first.
	Text string
	// Search is the query (a regex pattern with the regex tool) to search
	// the deferred tools with.
	Search string
	// SplitSearch ends the response after the search call, without its
	// result, when Call is also set: the API then opens the next response
	// with the result, as recorded live.
	SplitSearch bool
	// Call is a tool to call; "$found" calls the best tool the search found.
	Call  string
	Input any
	// Reply overrides everything: the turn answers with it as is.
	Reply *Reply
	// NeedTokens cuts the turn's tool call at the output limit (stop
	// reason max_tokens, half its input sent) while the request's
	// max_tokens is below it.
	NeedTokens int
}

// NewScript returns a script of turns.
func NewScript(turns ...Turn) *Script { return &Script{Turns: turns} }

// Done reports whether every turn was used.
func (sc *Script) Done() bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.next >= len(sc.Turns)
}

func (sc *Script) reply(s *Server, req *Request) Reply {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.next >= len(sc.Turns) {
		return Message(Text("(script finished)"))
	}
	t := sc.Turns[sc.next]
	if t.Reply != nil {
		sc.next++
		return *t.Reply
	}
	r := &req.parsed
	var blocks []json.RawMessage
	if r.thinkingOn() {
		// A thinking model thinks first, on every response.
		blocks = append(blocks, ThinkingBlock(fmt.Sprintf("Step %d: deciding what to do.", sc.next+1)))
	}
	found := ""
	fn := r.searchKind() == "function"
	if sc.searched {
		// Resume after the client answered our tool_search.
		found = lastReference(r)
		if fn {
			found = lastListed(r)
		}
		sc.searched = false
	} else {
		if t.Text != "" {
			blocks = append(blocks, Text(t.Text))
		}
		if t.Search != "" {
			switch kind := r.searchKind(); {
			case kind == "client" || kind == "function":
				blocks = append(blocks, ToolUse(s.toolID("toolu"), "tool_search", map[string]any{"query": t.Search}))
				sc.searched = true
				return Reply{Content: blocks}
			case kind != "":
				id := s.toolID("srvtoolu")
				in := map[string]any{"query": t.Search}
				if kind == "tool_search_tool_regex" {
					in = map[string]any{"pattern": t.Search}
				}
				use := mustJSON(map[string]any{"type": "server_tool_use", "id": id, "name": kind, "input": in})
				if t.SplitSearch && t.Call != "" && t.Call != "$found" {
					// As recorded: text, the client call, then the search
					// call whose result opens the next response.
					sc.next++
					blocks = append(blocks, ToolUse(s.toolID("toolu"), t.Call, input(t.Input)), use)
					return Reply{Content: blocks, StopReason: "tool_use"}
				}
				res := s.runSearch(r, openServerCall{ID: id, Name: kind, Input: mustJSON(in)})
				blocks = append(blocks, use, res)
				found = firstReference(res)
			}
		}
	}
	sc.next++
	call := t.Call
	if call == "$found" {
		call = found
	}
	if call != "" {
		if fn && t.Call == "$found" {
			blocks = append(blocks, ToolUse(s.toolID("toolu"), "tool_call", map[string]any{"name": call, "arguments": input(t.Input)}))
		} else {
			blocks = append(blocks, ToolUse(s.toolID("toolu"), call, input(t.Input)))
		}
		if t.NeedTokens > 0 && r.MaxTokens < t.NeedTokens {
			sc.next-- // the same turn again, once the limit is raised
			return Reply{Content: blocks, StopReason: "max_tokens", CutLastInput: true}
		}
	}
	if len(blocks) == 0 || (len(blocks) == 1 && r.thinkingOn()) {
		blocks = append(blocks, Text("(nothing to say)"))
	}
	return Reply{Content: blocks}
}

// lastListed is the first tool named in the last tool_result's text, the
// function-form search answer ({"tools":[{"name":...}]}).
func lastListed(r *wireRequest) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		for _, b := range r.Messages[i].Content {
			if b.Type != "tool_result" {
				continue
			}
			var items []wireBlock
			_ = json.Unmarshal(b.Content, &items)
			for _, it := range items {
				if it.Type != "text" || it.Text == nil {
					continue
				}
				var ans struct {
					Tools []struct {
						Name string `json:"name"`
					} `json:"tools"`
				}
				if json.Unmarshal([]byte(*it.Text), &ans) == nil && len(ans.Tools) > 0 {
					return ans.Tools[0].Name
				}
			}
		}
	}
	return ""
}

func input(v any) any {
	if v == nil {
		return map[string]any{}
	}
	if raw, ok := v.(string); ok && json.Valid([]byte(raw)) {
		return json.RawMessage(raw)
	}
	return v
}

// searchKind is the search tool name offered: a native one, "client" for
// the custom tool_search tool, or "".
func (r *wireRequest) searchKind() string {
	for _, t := range r.tools {
		if strings.HasPrefix(t.Type, "tool_search_tool_") {
			return t.Name
		}
	}
	search, call := false, false
	for _, t := range r.tools {
		search = search || t.Name == "tool_search" && t.Type == ""
		call = call || t.Name == "tool_call" && t.Type == ""
	}
	switch {
	case search && call:
		return "function"
	case search:
		return "client"
	}
	return ""
}

func firstReference(res json.RawMessage) string {
	var b struct {
		Content struct {
			Refs []struct {
				ToolName string `json:"tool_name"`
			} `json:"tool_references"`
		} `json:"content"`
	}
	_ = json.Unmarshal(res, &b)
	if len(b.Content.Refs) > 0 {
		return b.Content.Refs[0].ToolName
	}
	return ""
}

// lastReference is the first tool_reference of the last tool_result.
func lastReference(r *wireRequest) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		for _, b := range r.Messages[i].Content {
			if b.Type != "tool_result" {
				continue
			}
			var items []wireBlock
			_ = json.Unmarshal(b.Content, &items)
			for _, it := range items {
				if it.Type == "tool_reference" {
					return it.ToolName
				}
			}
		}
	}
	return ""
}

// runSearch answers a native search over the request's deferred tools:
// bm25-ish token scoring for queries, Python-style case-insensitive regex
// for patterns (an invalid one is the API's invalid_tool_input error).
func (s *Server) runSearch(r *wireRequest, c openServerCall) json.RawMessage {
	var in struct {
		Query   string `json:"query"`
		Pattern string `json:"pattern"`
		Limit   int    `json:"limit"`
	}
	_ = json.Unmarshal(c.Input, &in)
	limit := in.Limit
	if limit <= 0 {
		limit = 5
	}
	var deferred []wireTool
	for _, t := range r.tools {
		if t.DeferLoading {
			deferred = append(deferred, t)
		}
	}
	type hit struct {
		name  string
		score float64
		order int
	}
	var hits []hit
	if in.Pattern != "" || strings.HasSuffix(c.Name, "regex") {
		pat := in.Pattern
		if pat == "" {
			pat = in.Query
		}
		if len(pat) > 200 {
			return SearchError(c.ID, "invalid_tool_input", "Pattern exceeds maximum length of 200 characters")
		}
		re, err := regexp.Compile("(?i)" + pat)
		if err != nil {
			return SearchError(c.ID, "invalid_tool_input", "Invalid regular expression pattern: "+err.Error())
		}
		for i, t := range deferred {
			if re.MatchString(t.Name) || re.MatchString(t.Description) || re.Match(t.InputSchema) {
				hits = append(hits, hit{t.Name, 1, i})
			}
		}
	} else {
		q := tokens(in.Query)
		for i, t := range deferred {
			name := tokens(t.Name)
			desc := tokens(t.Description + " " + string(t.InputSchema))
			score := 0.0
			for _, w := range q {
				score += 3*count(name, w) + count(desc, w)
			}
			if score > 0 {
				hits = append(hits, hit{t.Name, score, i})
			}
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score > hits[b].score })
	var names []string
	for i, h := range hits {
		if i >= limit {
			break
		}
		names = append(names, h.name)
	}
	return SearchResult(c.ID, names...)
}

var wordRE = regexp.MustCompile(`[a-z0-9]+`)

// tokens splits on non-alphanumerics and camelCase, lowercased, and drops
// a plural s so "prices" finds "price".
func tokens(s string) []string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	var out []string
	for _, w := range wordRE.FindAllString(strings.ToLower(b.String()), -1) {
		if len(w) > 3 {
			w = strings.TrimSuffix(w, "s")
		}
		if stop[w] {
			continue
		}
		out = append(out, w)
	}
	return out
}

var stop = map[string]bool{"the": true, "a": true, "an": true, "of": true, "to": true, "for": true, "and": true, "or": true,
	"in": true, "is": true, "type": true, "object": true, "string": true, "propertie": true, "properties": true, "required": true, "description": true}

func count(ws []string, w string) float64 {
	n := 0.0
	for _, x := range ws {
		if x == w {
			n++
		}
	}
	return n
}
