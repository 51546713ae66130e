package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
)

// caps reads the model's capabilities from the table (the built-in one
// with the config's "models" entries and NativeModels applied).
func (p *Provider) caps(model string) models.Capabilities {
	return p.table.Lookup(providerName, model)
}

// Function-form client search, for models and endpoints that do not take
// defer_loading and tool_reference (Claude Opus 4.1 and older, Claude 3,
// Anthropic-compatible endpoints declared without deferral): tool_search
// answers with the found definitions as text and tool_call runs one of them.
const (
	fnSearchDescription = "Search the catalog of additional tools that are available but not loaded yet. " +
		"Returns the best matches with their names, descriptions and full JSON input schemas; run one with tool_call. " +
		"Describe the capability you need in `query` (keywords work best), or use `select:NAME,NAME` to fetch tools by exact name. " +
		"Search before saying a capability is unavailable."
	fnCallDescription = "Run a tool found by tool_search. Give the tool's exact name and its arguments as a JSON object matching the input schema tool_search returned."
	// CallTool is the name of the function that runs a found tool.
	CallTool = "tool_call"
)

var fnCallSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"Exact tool name, as returned by tool_search."},"arguments":{"type":"object","description":"Arguments for the tool, matching its input schema."}},"required":["name","arguments"]}`)

// Thinking budgets per effort level for models sized by budget_tokens.
var budgets = map[string]int{
	models.EffortMinimal: 1024,
	models.EffortLow:     2048,
	models.EffortMedium:  8192,
	models.EffortHigh:    16384,
	models.EffortMax:     32000,
}

// minBudget is the API's smallest budget_tokens.
const minBudget = 1024

// thinking is the request's thinking and output_config members, and the
// max_tokens they need: adaptive thinking with an effort where the model
// has it, a token budget below max_tokens otherwise. notice is set when
// --effort cannot apply to this model.
type thinking struct {
	thinking, outputConfig json.RawMessage
	maxTokens              int
	notice                 string
}

func thinkingFor(req *agent.Request, c models.Capabilities, maxTokens int) thinking {
	t := thinking{maxTokens: maxTokens}
	if req.Effort == "" {
		return t
	}
	switch c.Thinking {
	case models.ThinkingAdaptive:
		if req.Effort == models.EffortNone {
			return t // no thinking parameter: the model answers without
		}
		e, _ := c.WireEffort(req.Effort)
		t.thinking = json.RawMessage(`{"type":"adaptive"}`)
		t.outputConfig = mustMarshal(object{{"effort", mustMarshal(e)}})
		t.notice = c.EffortNote(req.Model, req.Effort)
	case models.ThinkingEffort:
		// Opus 4.5: output_config.effort steers every token, thinking or
		// not; no thinking parameter goes with it.
		e, ok := c.WireEffort(req.Effort)
		if !ok {
			t.notice = fmt.Sprintf("--effort %s ignored: %s takes no effort", req.Effort, req.Model)
			return t
		}
		t.outputConfig = mustMarshal(object{{"effort", mustMarshal(e)}})
		t.notice = c.EffortNote(req.Model, req.Effort)
	case models.ThinkingBudget:
		if req.Effort == models.EffortNone {
			return t
		}
		b := budgets[req.Effort]
		// budget_tokens counts inside max_tokens and must stay below it:
		// raise max_tokens to leave room for the answer, within the model's
		// output limit, else shrink the budget.
		if need := b + 4096; t.maxTokens < need {
			t.maxTokens = min(need, max(c.MaxOutput, t.maxTokens))
		}
		if b >= t.maxTokens {
			b = t.maxTokens / 2
		}
		if b < minBudget {
			t.notice = fmt.Sprintf("--effort %s ignored: max tokens %d leave no room for a thinking budget (at least %d)", req.Effort, t.maxTokens, minBudget)
			t.maxTokens = maxTokens
			return t
		}
		t.thinking = mustMarshal(object{{"type", mustMarshal("enabled")}, {"budget_tokens", mustMarshal(b)}})
	default:
		t.notice = fmt.Sprintf("--effort %s ignored: %s has no extended thinking", req.Effort, req.Model)
	}
	return t
}

// answersThinkingTurn reports whether the request may enable thinking: when
// its last message answers tool calls, the assistant message that made
// them must start with a thinking block.
func answersThinkingTurn(msgs []wireMessage) bool {
	n := len(msgs)
	if n < 2 || msgs[n-1].Role != "user" || msgs[n-2].Role != "assistant" {
		return true
	}
	results := false
	for _, b := range msgs[n-1].Content {
		results = results || blockType(b) == "tool_result"
	}
	if !results || len(msgs[n-2].Content) == 0 {
		return true
	}
	t := blockType(msgs[n-2].Content[0])
	return t == "thinking" || t == "redacted_thinking"
}

// fnSearchAnswer is the text a tool_search function call returns: the
// found tools with full schemas, so the model can call them through tool_call.
func fnSearchAnswer(id string, r agent.SearchResult, catalog func(string) (agent.ToolDef, bool)) json.RawMessage {
	type found struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema,omitempty"`
	}
	var text string
	list := []found{}
	for _, n := range r.Tools {
		if d, ok := catalog(n); ok {
			list = append(list, found{d.Name, d.Description, compact(d.Schema)})
		}
	}
	switch {
	case r.Error != "":
		text = "tool search failed: " + r.Error
	case len(list) == 0:
		text = `{"tools":[],"note":"no matching tools; try other keywords"}`
	default:
		b, _ := json.Marshal(map[string]any{"tools": list, "note": "call these with tool_call {name, arguments}"})
		text = string(b)
	}
	o := object{{"type", mustMarshal("tool_result")}, {"tool_use_id", mustMarshal(id)}, {"content", mustMarshal([]json.RawMessage{textBlock(text)})}}
	if r.Error != "" {
		o = append(o, field{"is_error", json.RawMessage("true")})
	}
	return mustMarshal(o)
}

// wrapCall renders a call of a deferred tool through tool_call.
func wrapCall(id, name string, input json.RawMessage) json.RawMessage {
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	return toolUse(id, CallTool, mustMarshal(object{{"name", mustMarshal(name)}, {"arguments", compact(input)}}))
}
