package anthropictest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-dev/agent/models"
)

// The rules of this file judge a request by its model's capabilities (the
// models table, or Server.Models): what the real API answers with a 400
// for deferral on models without tool search, thinking parameters, and
// output limits. The texts are the API's own (docs, client bug reports).

type wireThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type wireOutputConfig struct {
	Effort string `json:"effort"`
}

func (s *Server) caps(model string) models.Capabilities {
	return s.Models.Lookup("anthropic", model)
}

func (r *wireRequest) thinkingOn() bool {
	return r.Thinking != nil && r.Thinking.Type != "" && r.Thinking.Type != "disabled"
}

// Signature is the fake's signature of a thinking text; the API rejects a
// thinking block whose signature does not match its text.
func Signature(thinking string) string {
	sum := sha256.Sum256([]byte("fake-thinking:" + thinking))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// ThinkingBlock is a signed thinking block.
func ThinkingBlock(text string) json.RawMessage {
	return mustJSON(struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
	}{"thinking", text, Signature(text)})
}

func adaptiveOnly(c models.Capabilities) bool {
	return c.Thinking == models.ThinkingAdaptive && slices.Contains(c.Efforts, "xhigh")
}

// validateCaps returns the 400 message a request draws for its model, or "".
func (s *Server) validateCaps(r *wireRequest) string {
	c := s.caps(r.Model)
	claude := c.Family == "anthropic"
	if c.Known && r.MaxTokens > c.MaxOutput {
		return fmt.Sprintf("max_tokens: %d > %d, which is the maximum allowed number of output tokens for %s", r.MaxTokens, c.MaxOutput, r.Model)
	}
	if !c.DeferLoading && !s.Deferral[r.Model] {
		for i, t := range r.tools {
			if !t.DeferLoading || t.Type != "" {
				continue
			}
			if claude {
				return fmt.Sprintf("tools.%d.custom.defer_loading: Extra inputs are not permitted", i)
			}
			return fmt.Sprintf("Deferred custom tools are only supported on Anthropic models and on Anthropic-compatible provider endpoints that implement deferral. Other endpoints cannot call tools omitted from tools[]. Received %s.", r.Model)
		}
		for i, m := range r.Messages {
			for j, b := range m.Content {
				if b.Type != "tool_result" {
					continue
				}
				var items []wireBlock
				_ = json.Unmarshal(b.Content, &items)
				for k, it := range items {
					if it.Type == "tool_reference" {
						return fmt.Sprintf("messages.%d.content.%d.tool_result.content.%d: Input tag 'tool_reference' found using 'type' does not match any of the expected tags: 'document', 'image', 'search_result', 'text'", i, j, k)
					}
				}
			}
		}
	}
	if r.OutputConfig != nil && r.OutputConfig.Effort != "" {
		if len(c.Efforts) == 0 {
			return "output_config.effort: This model does not support the effort parameter."
		}
		if !slices.Contains(c.Efforts, r.OutputConfig.Effort) {
			q := make([]string, len(c.Efforts))
			for i, e := range c.Efforts {
				q[i] = "'" + e + "'"
			}
			return fmt.Sprintf("output_config.effort: Input should be %s or %s", strings.Join(q[:len(q)-1], ", "), q[len(q)-1])
		}
	}
	if !r.thinkingOn() {
		return ""
	}
	switch r.Thinking.Type {
	case "enabled":
		if c.Reasoning != models.ReasoningThinking {
			return fmt.Sprintf("'%s' does not support thinking.", r.Model)
		}
		if adaptiveOnly(c) {
			return "thinking.type.enabled is not supported for this model. Use thinking.type.adaptive and output_config.effort to control thinking behavior."
		}
		if r.Thinking.BudgetTokens < 1024 {
			return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
		}
		if r.Thinking.BudgetTokens >= r.MaxTokens {
			return "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
		}
	case "adaptive":
		if c.Thinking != models.ThinkingAdaptive {
			return fmt.Sprintf("thinking.type.adaptive is not supported for model '%s'. Use thinking.type.enabled with budget_tokens.", r.Model)
		}
	default:
		return fmt.Sprintf("thinking.type: Input tag '%s' found using 'type' does not match any of the expected tags: 'adaptive', 'disabled', 'enabled'", r.Thinking.Type)
	}
	if r.Temperature != nil && *r.Temperature != 1 {
		return "`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility"
	}
	for i, m := range r.Messages {
		for j, b := range m.Content {
			if b.Type == "thinking" && b.Signature != Signature(b.Thinking) {
				return fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
			}
		}
	}
	// In a tool loop (the last message answers tool calls) the assistant
	// message that made the calls must start with its thinking block.
	n := len(r.Messages)
	if n >= 2 && r.Messages[n-1].Role == "user" && r.Messages[n-2].Role == "assistant" {
		results := false
		for _, b := range r.Messages[n-1].Content {
			results = results || b.Type == "tool_result"
		}
		a := r.Messages[n-2]
		if results && len(a.Content) > 0 && a.Content[0].Type != "thinking" && a.Content[0].Type != "redacted_thinking" {
			return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking", n-2, a.Content[0].Type)
		}
	}
	return ""
}
