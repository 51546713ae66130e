// Package models is the capability table: what each model accepts on the
// wire (context window, output limit, tool search and deferred loading,
// reasoning and thinking controls, the schema dialect of its tools). Every
// decision that depends on the model reads it here instead of guessing from
// the name at the call site. The built-in table covers the current
// Anthropic, OpenAI, Google, DeepSeek, Mistral, Qwen and Llama families;
// the config file's "models" section declares or overrides any id
// (deployment names, proxy ids) through Table.With.
//
// The package imports nothing of the project.
package models

import (
	"fmt"
	"sort"
	"strings"
)

// ReasoningKind says how a model reasons and what of it comes back.
type ReasoningKind string

const (
	// ReasoningNone: the model does not reason (gpt-4o, gpt-5-chat-latest, deepseek-chat).
	ReasoningNone ReasoningKind = "none"
	// ReasoningEffort: OpenAI reasoning models, controlled by an effort
	// level (Responses reasoning.effort, Chat reasoning_effort); reasoning
	// items come back opaque (encrypted) for stateless replay.
	ReasoningEffort ReasoningKind = "effort"
	// ReasoningThinking: Claude thinking blocks with signatures, controlled
	// by the thinking parameter (see ThinkingKind).
	ReasoningThinking ReasoningKind = "thinking"
	// ReasoningContent: reasoning text in a reasoning_content field of the
	// assistant message (DeepSeek, Qwen and other open models on Chat
	// Completions servers); DeepSeek requires it back on tool-call turns.
	ReasoningContent ReasoningKind = "content"
	// ReasoningGemini: Gemini thinking (thinkingConfig on the native API,
	// reasoning_effort on the OpenAI-compatible one), with thought
	// signatures that must be replayed on function calls.
	ReasoningGemini ReasoningKind = "gemini"
)

// ThinkingKind says how thinking is turned on and sized.
type ThinkingKind string

const (
	// ThinkingNone: no thinking control.
	ThinkingNone ThinkingKind = "none"
	// ThinkingBudget: an explicit token budget (Claude thinking
	// {type: enabled, budget_tokens}, Gemini 2.5 thinkingBudget).
	ThinkingBudget ThinkingKind = "budget"
	// ThinkingAdaptive: the model sizes its own thinking, steered by an
	// effort level (Claude thinking {type: adaptive} + output_config.effort).
	// Models that also accept budgets (Opus/Sonnet 4.6) are listed adaptive.
	ThinkingAdaptive ThinkingKind = "adaptive"
	// ThinkingLevel: a named level (Gemini 3 thinkingLevel).
	ThinkingLevel ThinkingKind = "level"
	// ThinkingEffort: an effort level only (OpenAI reasoning models).
	ThinkingEffort ThinkingKind = "effort"
	// ThinkingAlways: always thinks, no control (deepseek-reasoner).
	ThinkingAlways ThinkingKind = "always"
	// ThinkingSwitch: a thinking on/off switch plus an effort level
	// (DeepSeek V4: thinking {type: enabled|disabled} and reasoning_effort).
	ThinkingSwitch ThinkingKind = "switch"
)

// Dialect is the JSON Schema dialect a model's tool parameters must be in.
type Dialect string

const (
	// DialectJSONSchema: JSON Schema as MCP servers write it (Anthropic,
	// OpenAI non-strict functions, most Chat Completions servers).
	DialectJSONSchema Dialect = "jsonschema"
	// DialectOpenAIStrict: OpenAI strict mode (every property required,
	// additionalProperties false, a limited keyword set).
	DialectOpenAIStrict Dialect = "openai-strict"
	// DialectGemini: the OpenAPI 3.0 subset Gemini accepts.
	DialectGemini Dialect = "gemini"
)

// Effort levels of --effort, from least to most.
const (
	EffortNone    = "none"
	EffortMinimal = "minimal"
	EffortLow     = "low"
	EffortMedium  = "medium"
	EffortHigh    = "high"
	EffortMax     = "max"
)

// EffortLevels lists the --effort values in order.
//
// nosource: the flag's own values, not a model's.
var EffortLevels = []string{EffortNone, EffortMinimal, EffortLow, EffortMedium, EffortHigh, EffortMax}

// Capabilities is what one model accepts.
type Capabilities struct {
	// Known is false when neither the table nor an override matched the id;
	// the other fields are then the provider's conservative defaults.
	Known bool `json:"known"`
	// Family is the vendor family: anthropic, openai, google, deepseek,
	// mistral, qwen, meta, or "" when unknown.
	Family string `json:"family,omitempty"`
	// ContextWindow is the input+output context in tokens.
	ContextWindow int `json:"context_window"`
	// MaxOutput is the most output tokens one response may have.
	MaxOutput int `json:"max_output"`
	// DefaultMaxTokens is the output limit sent when the user sets none:
	// a generous share of MaxOutput.
	DefaultMaxTokens int `json:"default_max_tokens"`
	// NativeSearch: the provider's own tool search (Anthropic
	// tool_search_tool_*, OpenAI tool_search) works with this model.
	NativeSearch bool `json:"native_search"`
	// DeferLoading: the model accepts defer_loading tool definitions and
	// tool_reference results (client search with deferral).
	DeferLoading bool `json:"defer_loading"`
	// Reasoning is how the model reasons.
	Reasoning ReasoningKind `json:"reasoning"`
	// EncryptedReasoning: the Responses API accepts
	// include: ["reasoning.encrypted_content"] for this model.
	EncryptedReasoning bool `json:"encrypted_reasoning"`
	// Thinking is how reasoning is turned on and sized.
	Thinking ThinkingKind `json:"thinking"`
	// Efforts are the effort values the API accepts for this model, least
	// to most, in the provider's own words ("minimal", "xhigh", "max"...).
	// Empty when effort cannot be set.
	Efforts []string `json:"efforts,omitempty"`
	// SchemaDialect is the dialect tool schemas are sanitised to.
	SchemaDialect Dialect `json:"schema_dialect"`
	// TakesImages: the model reads images. A model that does not answers
	// a request carrying one with a 400 (DeepSeek: "Model do not support
	// image input"), so the adapters leave a tool's images out for it and
	// say so in the tool result.
	TakesImages bool `json:"takes_images"`
	// ToolResultMedia: images a tool returned can go back inside its
	// result. Read by Gemini, whose older models reject media in a
	// function response (Gemini 3 takes it in functionResponse.parts);
	// the other providers' result formats take images on every model
	// that reads them.
	ToolResultMedia bool `json:"tool_result_media"`
	// Retired is the date (YYYY-MM-DD) from which the maker answers
	// requests to this id with an error; "" while it is served.
	Retired string `json:"retired,omitempty"`
}

// CanReason reports whether --effort can do anything on this model.
func (c Capabilities) CanReason() bool {
	return c.Thinking != ThinkingNone && c.Thinking != "" && c.Thinking != ThinkingAlways
}

// WireEffort maps an --effort level to the closest value the model accepts:
// "max" is the highest it has, "none" the lowest (or "none" itself), a level
// it lacks the next one up (else down). ok is false when the model takes no
// effort at all.
func (c Capabilities) WireEffort(level string) (string, bool) {
	if len(c.Efforts) == 0 || level == "" {
		return "", false
	}
	switch level {
	case EffortMax:
		return c.Efforts[len(c.Efforts)-1], true
	case EffortNone:
		return c.Efforts[0], true
	}
	for _, e := range c.Efforts {
		if e == level {
			return e, true
		}
	}
	want := rank(level)
	for _, e := range c.Efforts {
		if rank(e) >= want {
			return e, true
		}
	}
	return c.Efforts[len(c.Efforts)-1], true
}

// EffortMap is the wire value each --effort level becomes on this model,
// nil when effort cannot be set.
func (c Capabilities) EffortMap() map[string]string {
	if len(c.Efforts) == 0 {
		return nil
	}
	m := make(map[string]string, len(EffortLevels))
	for _, l := range EffortLevels {
		m[l], _ = c.WireEffort(l)
	}
	if c.Thinking == ThinkingAdaptive || c.Thinking == ThinkingSwitch {
		// --effort none turns thinking off (no thinking parameter on
		// Claude, thinking disabled on DeepSeek V4).
		m[EffortNone] = "off"
	}
	return m
}

// EffortNote is the warning to give when --effort level reaches the wire
// as another value (a level the model lacks): "" when it goes as asked.
func (c Capabilities) EffortNote(model, level string) string {
	wire, ok := c.WireEffort(level)
	if !ok || wire == level {
		return ""
	}
	return fmt.Sprintf("--effort %s: %s takes %s; sending %s", level, model, strings.Join(c.Efforts, ", "), wire)
}

// ImagesOmitted is the note a tool result carries in place of the n
// images it returned, for a model that takes no images.
func ImagesOmitted(n int) string {
	if n == 1 {
		return "[an image was omitted because the model takes no images]"
	}
	return fmt.Sprintf("[%d images were omitted because the model takes no images]", n)
}

func rank(e string) int {
	switch e {
	case "none":
		return 0
	case "minimal":
		return 1
	case "low":
		return 2
	case "medium":
		return 3
	case "high":
		return 4
	case "xhigh":
		return 5
	case "max":
		return 6
	}
	return 3
}

// The families whose own APIs change what an unknown id gets (fallback).
const (
	familyAnthropic = "anthropic"
	familyOpenAI    = "openai"
	familyGoogle    = "google"
)

// Table is the built-in table plus overrides. The nil *Table is the
// built-in table alone.
type Table struct {
	overrides []override
	// families maps a provider name to the family of the API it speaks
	// (WithFamilies): the table knows no provider by name.
	families map[string]string
}

// WithFamilies returns the table with the family each provider's API is
// made for ("anthropic" for bedrock, "" for a server of many vendors'
// models), as the provider registry declares it. A provider it does not
// name is looked up under the family of the same name, if there is one
// (a vendor's own API is named after it), else under none.
func (t *Table) WithFamilies(f map[string]string) *Table {
	nt := &Table{families: f}
	if t != nil {
		nt.overrides = t.overrides
	}
	return nt
}

// family is the family of provider's API.
func (t *Table) family(provider string) string {
	if t != nil {
		if f, ok := t.families[provider]; ok {
			return f
		}
	}
	if knownFamily(provider) {
		return provider
	}
	return ""
}

// knownFamily reports whether some model of the built-in table is of
// family f.
func knownFamily(f string) bool {
	if f == familyAnthropic || f == familyOpenAI {
		return true
	}
	for _, e := range table {
		if f != "" && e.c.Family == f {
			return true
		}
	}
	return false
}

type override struct {
	key    string // exact id, or a prefix when prefix is set
	prefix bool
	o      Override
}

// Lookup finds a model in the built-in table.
func Lookup(provider, model string) Capabilities {
	return (*Table)(nil).Lookup(provider, model)
}

// Lookup finds a model: an override for the exact id, else the longest
// prefix override ("proxy-*"), applied over the built-in entry (or over the
// entry of the model it is "like").
func (t *Table) Lookup(provider, model string) Capabilities {
	c := t.lookup(provider, model)
	// Retirement dates are the maker's, for its own API (the provider named
	// after the family): Bedrock, Vertex and the routers keep their own
	// schedules.
	if provider != c.Family {
		c.Retired = ""
	}
	return c
}

func (t *Table) lookup(provider, model string) Capabilities {
	family := t.family(provider)
	if t != nil {
		if o, ok := t.match(provider, model); ok {
			base := builtin(family, model)
			if o.Like != "" {
				base = builtin(family, o.Like)
			}
			return o.apply(base)
		}
	}
	return builtin(family, model)
}

func (t *Table) match(provider, model string) (Override, bool) {
	best, found := -1, Override{}
	ok := false
	// Later entries win: walk from the end, exact ids before prefixes.
	for i := len(t.overrides) - 1; i >= 0; i-- {
		ov := t.overrides[i]
		if ov.o.Provider != "" && !strings.EqualFold(ov.o.Provider, provider) {
			continue
		}
		switch {
		case !ov.prefix && ov.key == model:
			return ov.o, true
		case ov.prefix && strings.HasPrefix(model, ov.key) && len(ov.key) > best:
			best, found, ok = len(ov.key), ov.o, true
		}
	}
	return found, ok
}

// Keys lists the overridden ids, sorted (for diagnostics).
func (t *Table) Keys() []string {
	if t == nil {
		return nil
	}
	out := make([]string, 0, len(t.overrides))
	for _, o := range t.overrides {
		k := o.key
		if o.prefix {
			k += "*"
		}
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortStrings(s []string) { sort.Strings(s) }
