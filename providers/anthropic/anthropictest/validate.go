package anthropictest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

type wireRequest struct {
	Model     string            `json:"model"`
	MaxTokens int               `json:"max_tokens"`
	Stream    bool              `json:"stream"`
	Tools     json.RawMessage   `json:"tools"`
	Messages  []wireMessage     `json:"messages"`
	System    json.RawMessage   `json:"system"`
	MCP       []json.RawMessage `json:"mcp_servers"`
	// Thinking, OutputConfig, Temperature and Container are checked
	// against the model's capabilities (rules.go).
	Thinking     *wireThinking     `json:"thinking"`
	OutputConfig *wireOutputConfig `json:"output_config"`
	Temperature  *float64          `json:"temperature"`
	Container    string            `json:"container"`

	tools []wireTool
}

type wireTool struct {
	Type         string          `json:"type"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	DeferLoading bool            `json:"defer_loading"`
	CacheControl json.RawMessage `json:"cache_control"`
}

type wireMessage struct {
	raw     json.RawMessage
	Role    string
	Content []wireBlock
}

func (m *wireMessage) UnmarshalJSON(b []byte) error {
	m.raw = append(json.RawMessage(nil), b...)
	var w struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	m.Role = w.Role
	var s string
	if json.Unmarshal(w.Content, &s) == nil {
		m.Content = []wireBlock{{Type: "text", Text: &s}}
		return nil
	}
	return json.Unmarshal(w.Content, &m.Content)
}

type wireBlock struct {
	Type         string          `json:"type"`
	Text         *string         `json:"text"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	ToolUseID    string          `json:"tool_use_id"`
	Content      json.RawMessage `json:"content"`
	CacheControl json.RawMessage `json:"cache_control"`
	ToolName     string          `json:"tool_name"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	Source       json.RawMessage `json:"source"`
}

// MaxDeferred is the most deferred tools a request may carry ("Maximum
// tools: 10,000 tools in your catalog", the tool search tool's Limits).
const MaxDeferred = 10000

// customName is the pattern of a custom tool's name (the define-tools
// page: ^[a-zA-Z0-9_-]{1,128}$; the API's answer to a name outside it is in
// modelcontextprotocol/typescript-sdk#413, with the older limit of 64).
var customName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// The patterns of the ids of tool calls in the history: a tool_use's id
// (the API's answer to another provider's "functions.get_weather:0" or
// "call|fc_1" in RooCodeInc/Roo-Code#10649, HKUDS/nanobot#4356,
// BlockRunAI/ClawRouter#17) and a server_tool_use's (ding113/claude-code-hub#470).
var (
	toolUseID   = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	serverUseID = regexp.MustCompile(`^srvtoolu_[a-zA-Z0-9_]+$`)
)

// checkCustomTool: a custom tool's name matches the pattern and its
// input_schema is an object schema.
func checkCustomTool(i int, t wireTool) string {
	if !customName.MatchString(t.Name) {
		return fmt.Sprintf("tools.%d.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", i)
	}
	var sch struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(t.InputSchema, &sch) != nil || sch.Type != "object" {
		return fmt.Sprintf("tools.%d.custom.input_schema.type: Input should be 'object'", i)
	}
	return ""
}

// searchToolName is the name a tool search tool's type requires.
func searchToolName(typ string) string {
	switch {
	case strings.HasPrefix(typ, "tool_search_tool_regex_"):
		return "tool_search_tool_regex"
	case strings.HasPrefix(typ, "tool_search_tool_bm25_"):
		return "tool_search_tool_bm25"
	}
	return ""
}

// isObject reports whether raw is a JSON object (a tool call's input must
// be one; the API's pydantic-style answer otherwise).
func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// systemBreakpoints counts the cache_control marks of the system blocks,
// which count against the request's four breakpoints.
func systemBreakpoints(system json.RawMessage) int {
	var blocks []struct {
		CacheControl json.RawMessage `json:"cache_control"`
	}
	n := 0
	if json.Unmarshal(system, &blocks) == nil {
		for _, b := range blocks {
			if len(b.CacheControl) > 0 {
				n++
			}
		}
	}
	return n
}

func (b wireBlock) isServerUse() bool { return b.Type == "server_tool_use" || b.Type == "mcp_tool_use" }
func (b wireBlock) isServerResult() bool {
	return b.ToolUseID != "" && b.Type != "tool_result"
}

// validate enforces what the real API rejects with a 400 and returns its
// message, or "" when the request is acceptable.
func (s *Server) validate(r *wireRequest) string {
	if r.Model == "" {
		return "model: Field required"
	}
	if r.MaxTokens <= 0 {
		return "max_tokens: Field required"
	}
	if len(r.Messages) == 0 {
		return "messages: at least one message is required"
	}
	if len(r.Tools) > 0 {
		if err := json.Unmarshal(r.Tools, &r.tools); err != nil {
			return "tools: " + err.Error()
		}
	}
	names := map[string]bool{}
	deferred, eager, breakpoints := 0, 0, 0
	hasSearch := false
	for i, t := range r.tools {
		if t.Name != "" {
			if names[t.Name] {
				return "tools: Tool names must be unique."
			}
			names[t.Name] = true
		}
		if strings.HasPrefix(t.Type, "tool_search_tool_") {
			hasSearch = true
			// A server tool's name is fixed by its type, as
			// web_search_20250305's is "web_search".
			if want := searchToolName(t.Type); want != "" && t.Name != want {
				return fmt.Sprintf("tools.%d.%s.name: Input should be '%s'", i, t.Type, want)
			}
			if t.DeferLoading {
				return "tools: the tool search tool cannot have defer_loading=true"
			}
		}
		if t.Type == "" && len(t.InputSchema) == 0 {
			return fmt.Sprintf("tools: tool '%s': input_schema: Field required", t.Name)
		}
		if t.Type == "" || t.Type == "custom" {
			if msg := checkCustomTool(i, t); msg != "" {
				return msg
			}
		}
		if len(t.CacheControl) > 0 {
			breakpoints++
			if t.DeferLoading {
				return fmt.Sprintf("tools: Tool '%s' has defer_loading=true and cache_control set. Tools with defer_loading cannot use prompt caching.", t.Name)
			}
		}
		if t.DeferLoading {
			deferred++
		} else {
			eager++
		}
	}
	if deferred > 0 && eager == 0 {
		return "At least one tool must have defer_loading=false. All tools cannot be deferred."
	}
	if deferred > MaxDeferred {
		return fmt.Sprintf("tools: a maximum of %d tools may have defer_loading=true. Found %d.", MaxDeferred, deferred)
	}
	breakpoints += systemBreakpoints(r.System)
	if hasSearch && (s.NoNativeSearch[r.Model] || !s.caps(r.Model).NativeSearch && !s.Deferral[r.Model]) {
		return fmt.Sprintf("'%s' does not support tool search. Use a model that supports the tool search tool.", r.Model)
	}
	if msg := s.validateCaps(r); msg != "" {
		return msg
	}
	useIDs := map[string]bool{}
	for i, m := range r.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		if len(m.Content) == 0 {
			return fmt.Sprintf("messages.%d: all messages must have non-empty content", i)
		}
		for j, b := range m.Content {
			if len(b.CacheControl) > 0 {
				breakpoints++
			}
			if b.Type == "text" && (b.Text == nil || *b.Text == "") {
				return fmt.Sprintf("messages.%d.content.%d: text content blocks must be non-empty", i, j)
			}
			if (b.Type == "tool_use" || b.Type == "server_tool_use") && !isObject(b.Input) {
				return fmt.Sprintf("messages.%d.content.%d.%s.input: Input should be a valid dictionary", i, j, b.Type)
			}
			if msg := checkReferences(b, names); msg != "" {
				return msg
			}
			if msg := checkUseID(i, j, b, useIDs); msg != "" {
				return msg
			}
		}
	}
	if msg := checkFinalAssistant(r.Messages); msg != "" {
		return msg
	}
	if msg := checkImages(r.Messages); msg != "" {
		return msg
	}
	if breakpoints > 4 {
		return fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", breakpoints)
	}
	if msg := checkToolPairs(r.Messages); msg != "" {
		return msg
	}
	return checkServerPairs(r.Messages)
}

// checkReferences rejects a tool_reference to a tool the request does not carry.
func checkReferences(b wireBlock, names map[string]bool) string {
	var refs []string
	switch b.Type {
	case "tool_result":
		var items []wireBlock
		if json.Unmarshal(b.Content, &items) == nil {
			for _, it := range items {
				if it.Type == "tool_reference" {
					refs = append(refs, it.ToolName)
				}
			}
		}
	case "tool_search_tool_result":
		var c struct {
			Refs []wireBlock `json:"tool_references"`
		}
		_ = json.Unmarshal(b.Content, &c)
		for _, it := range c.Refs {
			refs = append(refs, it.ToolName)
		}
	}
	for _, name := range refs {
		if !names[name] {
			// The API's message has no position (the recorded vercel
			// answer, anthropics/claude-code#81863).
			return fmt.Sprintf("Tool reference '%s' not found in available tools", name)
		}
	}
	return ""
}

// checkFinalAssistant: a request that ends with an assistant message (a
// prefill, or a paused turn sent back to go on) may not end that message
// with whitespace (tailcallhq/forgecode#1872, anomalyco/opencode#1295).
func checkFinalAssistant(msgs []wireMessage) string {
	last := msgs[len(msgs)-1]
	if last.Role != "assistant" || len(last.Content) == 0 {
		return ""
	}
	b := last.Content[len(last.Content)-1]
	if b.Type == "text" && b.Text != nil && strings.TrimRight(*b.Text, " \t\n\r") != *b.Text {
		return "messages: final assistant content cannot end with trailing whitespace"
	}
	return ""
}

// checkUseID applies the id patterns of tool_use and server_tool_use
// blocks, and refuses an id already used in the request: the API's
// "`tool_use` ids must be unique" (anthropics/claude-code#20573, #20901;
// NVIDIA-NeMo/Switchyard#502, a Chat server that names every call call_0).
func checkUseID(i, j int, b wireBlock, seen map[string]bool) string {
	switch b.Type {
	case "tool_use":
		if !toolUseID.MatchString(b.ID) {
			return fmt.Sprintf("messages.%d.content.%d.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'", i, j)
		}
	case "server_tool_use":
		if !serverUseID.MatchString(b.ID) {
			return fmt.Sprintf("messages.%d.content.%d.server_tool_use.id: String should match pattern '^srvtoolu_[a-zA-Z0-9_]+$'", i, j)
		}
	default:
		return ""
	}
	if seen[b.ID] {
		return fmt.Sprintf("messages.%d.content.%d: `tool_use` ids must be unique", i, j)
	}
	seen[b.ID] = true
	return ""
}

// checkToolPairs: every tool_use is answered by a tool_result in the next
// (user) message, and every tool_result answers a tool_use of the previous one.
func checkToolPairs(msgs []wireMessage) string {
	for i, m := range msgs {
		if m.Role == "user" {
			prev := map[string]bool{}
			if i > 0 && msgs[i-1].Role == "assistant" {
				for _, b := range msgs[i-1].Content {
					if b.Type == "tool_use" {
						prev[b.ID] = true
					}
				}
			}
			for j, b := range m.Content {
				if b.Type != "tool_result" {
					continue
				}
				if strings.HasPrefix(b.ToolUseID, "srvtoolu_") {
					return fmt.Sprintf("messages.%d.content.%d: tool_result block(s) provided for server tool use id(s) %s: server tools are run by the API, do not send tool_result for them", i, j, b.ToolUseID)
				}
				if !prev[b.ToolUseID] {
					return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
				}
			}
			continue
		}
		var missing []string
		answered := map[string]bool{}
		if i+1 < len(msgs) && msgs[i+1].Role == "user" {
			// Only the tool_results that open the message answer: one
			// after a text block counts as missing (the API, live, in
			// QwenLM/qwen-code#8165; "tool_result blocks must come FIRST in
			// the content array", the tool use guide).
			for _, b := range msgs[i+1].Content {
				if b.Type != "tool_result" {
					break
				}
				answered[b.ToolUseID] = true
			}
		}
		last := i == len(msgs)-1
		for _, b := range m.Content {
			if b.Type == "tool_use" && !answered[b.ID] && !last {
				missing = append(missing, b.ID)
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", "))
		}
	}
	return ""
}

// checkServerPairs: a server tool call and its result sit in the same
// assistant message, or the result opens the next assistant message. A
// call still open in the last assistant message is what the API resumes.
func checkServerPairs(msgs []wireMessage) string {
	var asst []int
	for i, m := range msgs {
		if m.Role == "assistant" {
			asst = append(asst, i)
		}
	}
	for k, i := range asst {
		results := map[string]bool{}
		for _, b := range msgs[i].Content {
			if b.isServerResult() {
				results[b.ToolUseID] = true
			}
		}
		var next map[string]bool
		if k+1 < len(asst) {
			next = map[string]bool{}
			for _, b := range msgs[asst[k+1]].Content {
				if b.isServerResult() {
					next[b.ToolUseID] = true
				}
			}
		}
		uses := map[string]bool{}
		for _, b := range msgs[i].Content {
			if b.isServerUse() {
				uses[b.ID] = true
				if !results[b.ID] && next != nil && !next[b.ID] {
					return fmt.Sprintf("messages.%d: `%s` block %s has no corresponding result block. Server tool use blocks must be followed by their result.", i, b.Type, b.ID)
				}
			}
		}
		var prevUses map[string]bool
		if k > 0 {
			prevUses = map[string]bool{}
			for _, b := range msgs[asst[k-1]].Content {
				if b.isServerUse() {
					prevUses[b.ID] = true
				}
			}
		}
		for _, b := range msgs[i].Content {
			if b.isServerResult() && !uses[b.ToolUseID] && !prevUses[b.ToolUseID] {
				return fmt.Sprintf("messages.%d: `%s` block for %s has no corresponding server tool use block.", i, b.Type, b.ToolUseID)
			}
		}
	}
	return ""
}

// openServerCall is a search the last assistant message began but whose
// result has not been sent yet.
type openServerCall struct {
	ID, Name string
	Input    json.RawMessage
}

func (r *wireRequest) openServerCalls() []openServerCall {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "assistant" {
			continue
		}
		done := map[string]bool{}
		for _, b := range m.Content {
			if b.isServerResult() {
				done[b.ToolUseID] = true
			}
		}
		var out []openServerCall
		for _, b := range m.Content {
			if b.Type == "server_tool_use" && strings.HasPrefix(b.Name, "tool_search_tool_") && !done[b.ID] {
				out = append(out, openServerCall{b.ID, b.Name, b.Input})
			}
		}
		return out
	}
	return nil
}
