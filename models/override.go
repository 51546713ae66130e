package models

import (
	"fmt"
	"strings"
)

// Override declares or corrects one model id in the config file's "models"
// section. The key is the id as sent on the wire (an Azure deployment name,
// a proxy's alias), or a prefix ending in "*". Unset fields keep the value
// of the built-in entry, or of the model named by Like.
//
//	"models": {
//	  "my-gpt-deployment": {"like": "gpt-5.4"},
//	  "corp-claude-*":     {"like": "claude-sonnet-4-5", "native_search": false},
//	  "local-coder":       {"context_window": 32768, "max_output": 8192}
//	}
type Override struct {
	// Like names a model whose capabilities this id starts from.
	Like string `json:"like,omitempty"`
	// Provider limits the entry to one provider ("azure", "anthropic").
	Provider           string   `json:"provider,omitempty"`
	ContextWindow      *int     `json:"context_window,omitempty"`
	MaxOutput          *int     `json:"max_output,omitempty"`
	DefaultMaxTokens   *int     `json:"default_max_tokens,omitempty"`
	NativeSearch       *bool    `json:"native_search,omitempty"`
	DeferLoading       *bool    `json:"defer_loading,omitempty"`
	Reasoning          string   `json:"reasoning,omitempty"` // none | effort | thinking | content | gemini
	EncryptedReasoning *bool    `json:"encrypted_reasoning,omitempty"`
	Thinking           string   `json:"thinking,omitempty"` // none | budget | adaptive | level | effort | always | switch
	Efforts            []string `json:"efforts,omitempty"`
	SchemaDialect      string   `json:"schema_dialect,omitempty"` // jsonschema | openai-strict | gemini
	ToolResultMedia    *bool    `json:"tool_result_media,omitempty"`
	TakesImages        *bool    `json:"takes_images,omitempty"`
}

func (o Override) apply(c Capabilities) Capabilities {
	c.Known = true
	setInt := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	setBool := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	setInt(&c.ContextWindow, o.ContextWindow)
	setInt(&c.MaxOutput, o.MaxOutput)
	if o.DefaultMaxTokens != nil {
		c.DefaultMaxTokens = *o.DefaultMaxTokens
	} else if o.MaxOutput != nil && (c.DefaultMaxTokens > c.MaxOutput || c.DefaultMaxTokens == 0) {
		c.DefaultMaxTokens = defaultShare(c.MaxOutput)
	}
	setBool(&c.NativeSearch, o.NativeSearch)
	setBool(&c.DeferLoading, o.DeferLoading)
	setBool(&c.EncryptedReasoning, o.EncryptedReasoning)
	setBool(&c.ToolResultMedia, o.ToolResultMedia)
	setBool(&c.TakesImages, o.TakesImages)
	if o.Reasoning != "" {
		c.Reasoning = ReasoningKind(o.Reasoning)
	}
	if o.Thinking != "" {
		c.Thinking = ThinkingKind(o.Thinking)
	}
	if o.Efforts != nil {
		c.Efforts = o.Efforts
	}
	if o.SchemaDialect != "" {
		c.SchemaDialect = Dialect(o.SchemaDialect)
	}
	return c
}

// Validate checks the closed sets of an override.
func (o Override) Validate() error {
	check := func(field, v string, allowed ...string) error {
		if v == "" {
			return nil
		}
		for _, a := range allowed {
			if v == a {
				return nil
			}
		}
		return fmt.Errorf("%s %q: use one of %s", field, v, strings.Join(allowed, ", "))
	}
	if err := check("reasoning", o.Reasoning, "none", "effort", "thinking", "content", "gemini"); err != nil {
		return err
	}
	if err := check("thinking", o.Thinking, "none", "budget", "adaptive", "level", "effort", "always", "switch"); err != nil {
		return err
	}
	if err := check("schema_dialect", o.SchemaDialect, "jsonschema", "openai-strict", "gemini"); err != nil {
		return err
	}
	for _, p := range []*int{o.ContextWindow, o.MaxOutput, o.DefaultMaxTokens} {
		if p != nil && *p < 1 {
			return fmt.Errorf("token counts must be at least 1, got %d", *p)
		}
	}
	return nil
}

// With returns a table with the overrides over t's (later entries for the
// same key win). Keys ending in "*" are prefixes.
func (t *Table) With(overrides map[string]Override) (*Table, error) {
	nt := &Table{}
	if t != nil {
		nt.overrides = append(nt.overrides, t.overrides...)
		nt.families = t.families
	}
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	// Deterministic order; exact keys and prefixes never collide by construction.
	sortStrings(keys)
	for _, k := range keys {
		o := overrides[k]
		if err := o.Validate(); err != nil {
			return nil, fmt.Errorf("models %q: %w", k, err)
		}
		key, prefix := strings.CutSuffix(k, "*")
		if key == "" && !prefix {
			return nil, fmt.Errorf("models: empty model id")
		}
		nt.overrides = append(nt.overrides, override{key: key, prefix: prefix, o: o})
	}
	return nt, nil
}

// WithNativeSearch folds the older native_search_models map (model id or
// "prefix*" → searches natively) into the table.
func (t *Table) WithNativeSearch(m map[string]bool) (*Table, error) {
	ov := map[string]Override{}
	for k, v := range m {
		v := v
		o := Override{NativeSearch: &v}
		if v {
			// A model with the provider's tool search takes deferred
			// definitions too (the client form of the same search).
			o.DeferLoading = &v
		}
		ov[k] = o
	}
	if len(ov) == 0 {
		return t, nil
	}
	// Merge with an existing override for the same key rather than replace it.
	if t != nil {
		for i := range t.overrides {
			k := t.overrides[i].key
			if t.overrides[i].prefix {
				k += "*"
			}
			if n, ok := ov[k]; ok {
				o := t.overrides[i].o
				o.NativeSearch = n.NativeSearch
				if n.DeferLoading != nil && o.DeferLoading == nil {
					o.DeferLoading = n.DeferLoading
				}
				ov[k] = o
			}
		}
	}
	return t.With(ov)
}
