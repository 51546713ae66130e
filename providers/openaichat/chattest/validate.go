package chattest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	"github.com/agent-dev/agent/providers/internal/imagecheck"
)

type violation struct{ code, param, msg string }

func bad(param, format string, args ...any) *violation {
	return &violation{param: param, msg: fmt.Sprintf(format, args...)}
}

// knownFields are the top-level request fields the fake accepts; OpenAI
// answers any other with "Unrecognized request argument supplied".
var knownFields = map[string]bool{
	"model": true, "messages": true, "tools": true, "tool_choice": true, "stream": true,
	"stream_options": true, "max_tokens": true, "max_completion_tokens": true, "temperature": true,
	"top_p": true, "parallel_tool_calls": true, "n": true, "stop": true, "seed": true, "user": true,
	"response_format": true, "reasoning_effort": true, "metadata": true, "store": true,
}

var messageFields = map[string]bool{
	"role": true, "content": true, "name": true, "tool_calls": true, "tool_call_id": true, "refusal": true,
}

var fnName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// MaxCallID is the longest tool call id a Chat Completions request may carry.
const MaxCallID = 40

// MaxTools is the most tools a Chat Completions request may carry.
const MaxTools = 128

// validate applies the real API's request checks, with its messages.
func (s *Server) validate(body []byte, req *ChatRequest) *violation {
	top := raw(body)
	var unknown []string
	for k := range top {
		if !knownFields[k] && !s.knownHere(k, req.Model) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return bad("", "Unrecognized request argument supplied: %s", strings.Join(unknown, ", "))
	}
	if req.Model == "" {
		return bad("model", "you must provide a model parameter")
	}
	if len(req.Messages) == 0 {
		return bad("messages", "[] is too short - 'messages'")
	}
	if req.StreamOptions != nil && !req.Stream {
		return bad("stream_options", "The 'stream_options' parameter is only allowed when 'stream' is enabled.")
	}
	if v := s.validateTools(req.Tools, s.caps(req.Model).SchemaDialect == models.DialectGemini); v != nil {
		return v
	}
	var msgs []map[string]json.RawMessage
	_ = json.Unmarshal(top["messages"], &msgs)
	if v := s.validateMessages(req.Model, req.Messages, msgs); v != nil {
		return v
	}
	return s.validateModel(body, req, msgs)
}

// validateTools checks the tools array; gemini: the model is Google's,
// whose endpoint has Gemini's limit (512, checked with its schema rules)
// rather than OpenAI's 128.
func (s *Server) validateTools(tools json.RawMessage, gemini bool) *violation {
	if len(tools) == 0 || string(tools) == "null" {
		return nil
	}
	var defs []struct {
		Type     string `json:"type"`
		Function *struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(tools, &defs); err != nil {
		return bad("tools", "Invalid type for 'tools': expected an array of objects.")
	}
	if len(defs) == 0 {
		return bad("tools", "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.")
	}
	// "A max of 128 functions are supported" (the API reference); the
	// answer is in vishalmysore/Tools4AI#16 and julep-ai/julep#330.
	if len(defs) > MaxTools && !gemini {
		return &violation{code: "array_above_max_length", param: "tools",
			msg: fmt.Sprintf("Invalid 'tools': array too long. Expected an array with maximum length %d, but got an array with length %d instead.", MaxTools, len(defs))}
	}
	for i, d := range defs {
		p := fmt.Sprintf("tools[%d]", i)
		if d.Type != "function" || d.Function == nil {
			return bad(p+".type", "Invalid value: '%s'. Supported values are: 'function' and 'custom'.", d.Type)
		}
		n := d.Function.Name
		switch {
		case n == "":
			return bad(p+".function.name", "Missing required parameter: '%s.function.name'.", p)
		case len(n) > 64:
			return bad(p+".function.name", "Invalid '%s.function.name': string too long. Expected a string with maximum length 64, but got a string with length %d instead.", p, len(n))
		case !fnName.MatchString(n):
			return bad(p+".function.name", "Invalid '%s.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", p)
		}
		if len(d.Function.Parameters) > 0 {
			var sch struct {
				Type any `json:"type"`
			}
			if json.Unmarshal(d.Function.Parameters, &sch) != nil || sch.Type != "object" {
				return bad(p+".function.parameters", "Invalid schema for function '%s': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"%v\"'.", n, sch.Type)
			}
		}
	}
	return nil
}

func (s *Server) validateMessages(model string, ms []Message, raws []map[string]json.RawMessage) *violation {
	// pending holds the ids of the last assistant message's calls still
	// waiting for their tool message; inRun is true while only tool
	// messages have followed that assistant message.
	var pending map[string]bool
	var pendingAt int
	var order []string
	inRun := false
	unanswered := func() *violation {
		var left []string
		for _, id := range order {
			if pending[id] {
				left = append(left, id)
			}
		}
		if len(left) == 0 {
			return nil
		}
		return bad(fmt.Sprintf("messages.[%d].role", pendingAt),
			"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(left, ", "))
	}
	caps := s.caps(model)
	for i, m := range ms {
		p := fmt.Sprintf("messages[%d]", i)
		if i < len(raws) {
			for k := range raws[i] {
				if k == "reasoning_content" && (s.AcceptReasoning || caps.Reasoning == models.ReasoningContent) {
					continue
				}
				if !messageFields[k] {
					return bad(p, "Additional properties are not allowed ('%s' was unexpected) - 'messages.%d'", k, i)
				}
			}
		}
		if m.Role != "tool" && inRun {
			if v := unanswered(); v != nil {
				return v
			}
			inRun = false
		}
		switch m.Role {
		case "system", "developer", "user":
			if isNull(m.Content) {
				return bad(p+".content", "Invalid value for 'content': expected a string, got null.")
			}
		case "assistant":
			if isNull(m.Content) && len(m.ToolCalls) == 0 {
				return bad(p+".content", "Invalid value for 'content': expected a string, got null.")
			}
			pending, order, pendingAt = map[string]bool{}, nil, i
			for j, c := range m.ToolCalls {
				cp := fmt.Sprintf("%s.tool_calls[%d]", p, j)
				if c.ID == "" {
					return bad(cp+".id", "Missing required parameter: '%s.id'.", cp)
				}
				// OpenAI's limit on a call id (microsoft/autogen#6377,
				// langmanus/langmanus#119, openclaw/openclaw#875: a
				// Responses item id of 51 characters replayed here).
				if len(c.ID) > MaxCallID && caps.SchemaDialect != models.DialectGemini {
					return &violation{code: "string_above_max_length", param: cp + ".id",
						msg: fmt.Sprintf("Invalid '%s.id': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", cp, MaxCallID, len(c.ID))}
				}
				if c.Type != "function" {
					return bad(cp+".type", "Invalid value: '%s'. Supported values are: 'function'.", c.Type)
				}
				if c.Function.Name == "" {
					return bad(cp+".function.name", "Missing required parameter: '%s.function.name'.", cp)
				}
				var sarg string
				if json.Unmarshal(c.Function.Arguments, &sarg) != nil {
					return bad(cp+".function.arguments", "Invalid type for '%s.function.arguments': expected a string, but got %s instead.", cp, kind(c.Function.Arguments))
				}
				pending[c.ID] = true
				order = append(order, c.ID)
			}
			inRun = len(m.ToolCalls) > 0
		case "tool":
			if m.ToolCallID == "" {
				return bad(p+".tool_call_id", "Missing required parameter: '%s.tool_call_id'.", p)
			}
			if !inRun {
				return bad(fmt.Sprintf("messages.[%d].role", i), "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
			}
			if !pending[m.ToolCallID] {
				return bad(p+".tool_call_id", "Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of previous message.", m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			if isNull(m.Content) {
				return bad(p+".content", "Invalid value for 'content': expected a string, got null.")
			}
		default:
			return bad(p+".role", "Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", m.Role)
		}
	}
	if inRun {
		return unanswered()
	}
	return nil
}

func isNull(b json.RawMessage) bool {
	s := strings.TrimSpace(string(b))
	return s == "" || s == "null"
}

func kind(b json.RawMessage) string {
	s := strings.TrimSpace(string(b))
	switch {
	case s == "" || s == "null":
		return "null"
	case s[0] == '{':
		return "an object"
	case s[0] == '[':
		return "an array"
	case s[0] == 't' || s[0] == 'f':
		return "a boolean"
	}
	return "a number"
}

// Check applies the fake's request checks to a request body without a
// server: nil when the real API would accept it, else its 400 message.
func Check(body []byte, acceptReasoning bool) error {
	var req ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	s := &Server{AcceptReasoning: acceptReasoning}
	if v := s.validate(body, &req); v != nil {
		return fmt.Errorf("400 (param %s): %s", v.param, v.msg)
	}
	return nil
}

// caps is what the fake knows of model: the models table, or Server.Models.
func (s *Server) caps(model string) models.Capabilities {
	return s.Models.Lookup("openai-chat", model)
}

// gemini3 reports whether model is a Gemini 3 model, whose function calls
// carry thought signatures that must come back.
func gemini3(c models.Capabilities) bool {
	return c.Reasoning == models.ReasoningGemini && c.Thinking == models.ThinkingLevel
}

// knownHere reports whether field is one this server adds to OpenAI's:
// DeepSeek's thinking switch (V4), OpenRouter's reasoning object.
func (s *Server) knownHere(field, model string) bool {
	switch field {
	case "thinking":
		return s.caps(model).Thinking == models.ThinkingSwitch
	case "reasoning":
		return s.Router
	}
	return false
}

// routerEfforts are the values OpenRouter documents for reasoning.effort.
var routerEfforts = []string{"xhigh", "high", "medium", "low", "minimal", "none"}

// validateExtensions checks DeepSeek's thinking switch and OpenRouter's
// reasoning object.
func validateExtensions(top map[string]json.RawMessage) *violation {
	if t, ok := top["thinking"]; ok {
		var v struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(t, &v) != nil || v.Type != "enabled" && v.Type != "disabled" {
			return bad("thinking", "thinking.type: expected 'enabled' or 'disabled', got %s", t)
		}
	}
	if r, ok := top["reasoning"]; ok {
		var v struct {
			Effort    *string `json:"effort"`
			MaxTokens *int    `json:"max_tokens"`
		}
		if json.Unmarshal(r, &v) != nil {
			return bad("reasoning", "reasoning: expected an object")
		}
		if v.Effort != nil && v.MaxTokens != nil {
			return bad("reasoning", "reasoning: only one of effort and max_tokens may be given")
		}
		if v.Effort != nil && !slices.Contains(routerEfforts, *v.Effort) {
			return bad("reasoning.effort", "reasoning.effort: expected one of %s, got %q", strings.Join(routerEfforts, ", "), *v.Effort)
		}
		if _, both := top["reasoning_effort"]; both {
			return bad("reasoning", "reasoning: give reasoning_effort or reasoning, not both")
		}
	}
	return nil
}

// validateImages refuses image parts to a model that reads none, with
// the server's words: DeepSeek's (api-docs.deepseek.com; every model
// answers so), else OpenAI's for its text-only models (Groq's text-only
// models refuse the same request; its exact text is not documented).
// An image a model takes must still be one OpenAI's rules take (format,
// size, bytes; see imagecheck).
func validateImages(c models.Capabilities, raws []map[string]json.RawMessage) *violation {
	for i, m := range raws {
		var parts []struct {
			Type     string `json:"type"`
			ImageURL *struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if json.Unmarshal(m["content"], &parts) != nil {
			continue
		}
		for j, p := range parts {
			if p.Type != "image_url" {
				continue
			}
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return bad(fmt.Sprintf("messages.[%d].content.[%d].image_url", i, j), "Missing required parameter: 'messages[%d].content[%d].image_url'.", i, j)
			}
			// Only a user message carries images (OpenHands/OpenHands#7700
			// for a tool's, openai/openai-node#1030 for an assistant's);
			// a tool's images go in a user message after the tool messages.
			var role string
			_ = json.Unmarshal(m["role"], &role)
			if role != "user" {
				return bad(fmt.Sprintf("messages[%d]", i), "Invalid 'messages[%d]'. Image URLs are only allowed for messages with role 'user', but this message with role '%s' contains an image URL.", i, role)
			}
			if !c.Known || c.TakesImages {
				if code, msg := imagecheck.OpenAI(p.ImageURL.URL); code != "" {
					return &violation{code: code, msg: msg}
				}
				continue
			}
			if c.Family == "deepseek" {
				return bad("", "Model do not support image input")
			}
			return bad(fmt.Sprintf("messages.[%d].content.[%d].type", i, j), "Invalid content type. image_url is only supported by certain models.")
		}
	}
	return nil
}

// validateModel applies the rules that depend on the model, with the real
// servers' messages: Gemini 3's thought signatures on the compatible
// endpoint (openai/codex#7519), DeepSeek's reasoning_content on tool-call
// turns in thinking mode, unknown members of tool calls elsewhere,
// reasoning_effort and the output limit.
func (s *Server) validateModel(body []byte, req *ChatRequest, raws []map[string]json.RawMessage) *violation {
	c := s.caps(req.Model)
	top := raw(body)
	if v := validateExtensions(top); v != nil {
		return v
	}
	if v := validateImages(c, raws); v != nil {
		return v
	}
	if e, ok := top["reasoning_effort"]; ok {
		var v string
		_ = json.Unmarshal(e, &v)
		if len(c.Efforts) == 0 {
			return bad("reasoning_effort", "Unsupported parameter: 'reasoning_effort' is not supported with this model.")
		}
		found := false
		for _, x := range c.Efforts {
			found = found || x == v
		}
		if !found {
			return bad("reasoning_effort", "Unsupported value: 'reasoning_effort' does not support '%s' with this model. Supported values are: '%s'.", v, strings.Join(c.Efforts, "', '"))
		}
	}
	if _, ok := top["max_tokens"]; ok && c.Family == "openai" && c.Reasoning == models.ReasoningEffort && !s.Router {
		// OpenAI's reasoning models (o-series, GPT-5) take only
		// max_completion_tokens (gollm#33, ComfyUI-Griptape#312);
		// OpenRouter maps max_tokens itself.
		return &violation{code: "unsupported_parameter", param: "max_tokens",
			msg: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}
	}
	for _, f := range []string{"max_tokens", "max_completion_tokens"} {
		var n int
		if json.Unmarshal(top[f], &n) == nil && c.Known && n > c.MaxOutput {
			return bad(f, "%s is too large: %d. This model supports at most %d completion tokens, whereas you provided %d.", f, n, c.MaxOutput, n)
		}
	}
	if c.SchemaDialect == models.DialectGemini && len(req.Tools) > 0 {
		var defs []struct {
			Function struct {
				Parameters any `json:"parameters"`
			} `json:"function"`
		}
		_ = json.Unmarshal(req.Tools, &defs)
		var raws []struct {
			Function struct {
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		_ = json.Unmarshal(req.Tools, &raws)
		if len(defs) > geminitest.MaxDeclarations {
			return bad("", "The GenerateContentRequest proto is invalid:\n  * tools[0].function_declarations: [FIELD_INVALID] At most %d function declarations can be specified.", geminitest.MaxDeclarations)
		}
		for i, d := range defs {
			if k := geminiUnknown(d.Function.Parameters); k != "" {
				return bad(fmt.Sprintf("tools[%d]", i), "Invalid JSON payload received. Unknown name \"%s\" at 'tools[%d].function_declarations[0].parameters': Cannot find field.", k, i)
			}
			// The endpoint declares the functions to Gemini, whose schema
			// rules then apply.
			if msg := geminitest.SchemaRules(raws[i].Function.Parameters, fmt.Sprintf("tools[0].function_declarations[%d].parameters", i)); msg != "" {
				return bad("", "%s", msg)
			}
		}
	}
	lastUser := -1
	for i, m := range req.Messages {
		if m.Role == "user" {
			lastUser = i
		}
	}
	for i, m := range req.Messages {
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		var calls []map[string]json.RawMessage
		if i < len(raws) {
			_ = json.Unmarshal(raws[i]["tool_calls"], &calls)
		}
		for j, call := range calls {
			for k := range call {
				if k == "id" || k == "type" || k == "function" || k == "index" {
					continue
				}
				if k == "extra_content" && c.Family == "google" {
					continue
				}
				return bad(fmt.Sprintf("messages[%d].tool_calls[%d]", i, j), "Additional properties are not allowed ('%s' was unexpected) - 'messages.%d.tool_calls.%d'", k, i, j)
			}
		}
		if gemini3(c) && i > lastUser && len(calls) > 0 {
			var ec struct {
				Google struct {
					ThoughtSignature string `json:"thought_signature"`
				} `json:"google"`
			}
			_ = json.Unmarshal(calls[0]["extra_content"], &ec)
			if sig := ec.Google.ThoughtSignature; sig != ThoughtSignature(m.ToolCalls[0].ID) && sig != "skip_thought_signature_validator" {
				return &violation{code: "400", param: "", msg: fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", m.ToolCalls[0].Function.Name, i+1)}
			}
		}
		if c.Family == "deepseek" && c.Reasoning == models.ReasoningContent {
			if _, ok := raws[i]["reasoning_content"]; !ok {
				return bad("", "Missing `reasoning_content` field in the assistant message at message index %d. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls", i)
			}
		}
	}
	return nil
}

// geminiUnknown names the first schema keyword Gemini's function
// declarations reject (its schema is an OpenAPI 3.0 subset).
func geminiUnknown(n any) string {
	switch v := n.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch k {
			case "$schema", "additionalProperties", "const", "$ref", "$defs", "oneOf", "allOf", "patternProperties", "exclusiveMinimum", "exclusiveMaximum", "examples", "default":
				return k
			case "enum":
				list, _ := v[k].([]any)
				for _, e := range list {
					if _, ok := e.(string); !ok {
						return "enum"
					}
				}
				continue
			case "properties":
				props, _ := v[k].(map[string]any)
				for _, p := range props {
					if bad := geminiUnknown(p); bad != "" {
						return bad
					}
				}
				continue
			}
			if bad := geminiUnknown(v[k]); bad != "" {
				return bad
			}
		}
	case []any:
		for _, x := range v {
			if bad := geminiUnknown(x); bad != "" {
				return bad
			}
		}
	}
	return ""
}

// ThoughtSignature is the signature the fake gives a Gemini 3 call.
func ThoughtSignature(callID string) string { return "sig_" + callID }
