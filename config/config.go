// Package config reads the config files: the keys of config.json (user and
// project), MCP server configs, ${VAR} expansion and presets. The layering
// of defaults, files, environment, flags and a resumed session is app's
// (app.Load); nothing here is a package global.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-dev/agent/models"
)

// Config is what shapes a run. Secrets are never part of it: API keys are
// read from the environment by the provider wiring and never stored.
type Config struct {
	Provider      string `json:"provider,omitempty"`
	Model         string `json:"model,omitempty"`
	FallbackModel string `json:"fallback_model,omitempty"`
	BaseURL       string `json:"base_url,omitempty"`
	Search        string `json:"search,omitempty"`      // native | client | off
	SearchAlgo    string `json:"search_algo,omitempty"` // bm25 | regex (Anthropic native)
	Theme         string `json:"theme,omitempty"`
	MaxSteps      int    `json:"max_steps,omitempty"`
	MaxTokens     int    `json:"max_tokens,omitempty"` // 0: the model's default from the models table
	// Effort is the reasoning effort: none, minimal, low, medium, high or max
	// ("" leaves the provider's default).
	Effort        string   `json:"effort,omitempty"`
	System        string   `json:"system,omitempty"`
	ProviderTools []string `json:"provider_tools,omitempty"`
	// NativeSearchModels overrides the model table: model id → searches natively.
	NativeSearchModels map[string]bool `json:"native_search_models,omitempty"`
	// Models declares or overrides entries of the capability table: model id
	// (or "prefix*") → capabilities (see the models package).
	Models map[string]models.Override `json:"models,omitempty"`
	// RequireApproval lists glob patterns of tool names ("github__*") or
	// "server:NAME" entries whose calls wait for the user's approval.
	RequireApproval []string `json:"require_approval,omitempty"`
	// DeferThreshold is the --defer auto budget: a token count, or when
	// below 1 a share of the model's context window (default 0.1).
	DeferThreshold float64 `json:"defer_threshold,omitempty"`
	// MCPServers may be given inline in the config file too.
	MCPServers json.RawMessage `json:"mcpServers,omitempty"`
	// FirstByteTimeout bounds the wait for a provider's first answer,
	// StreamIdleTimeout every pause in its stream (defaults 60 s and 5 min).
	FirstByteTimeout  Duration `json:"first_byte_timeout,omitempty"`
	StreamIdleTimeout Duration `json:"stream_idle_timeout,omitempty"`
	// MaxRetryWait is the longest retry-after honoured (default 60 s).
	MaxRetryWait Duration `json:"max_retry_wait,omitempty"`
	// MCPCache false turns the MCP catalog cache off (as --no-cache does):
	// every start waits for every server to list its tools.
	MCPCache *bool `json:"mcp_cache,omitempty"`
	// Agents holds named agent profiles (package config/agents reads them,
	// with their lines, from the file itself).
	Agents json.RawMessage `json:"agents,omitempty"`
	// AutoCompact is when a conversation is compacted before a request: a
	// share of the model's context window (default 0.8), or false for never.
	AutoCompact *AutoCompact `json:"auto_compact,omitempty"`
	// Learn false stops tool search learning from use (as --no-learn does):
	// searches and calls are not recorded and earlier ones not used.
	Learn *bool `json:"learn,omitempty"`
}

// Duration is a config duration: a string time.ParseDuration reads
// ("90s", "5m") or a number of seconds.
type Duration time.Duration

// UnmarshalJSON reads "90s" or 90.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration: write it like \"90s\" or \"5m\"", s)
		}
		if v <= 0 {
			return fmt.Errorf("duration %q must be positive", s)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("%s is not a duration: write it like \"90s\" or \"5m\"", b)
	}
	if secs <= 0 || secs > 1e9 {
		return fmt.Errorf("duration %s must be a positive number of seconds", b)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// MarshalJSON writes the duration as text ("1m30s").
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// Defaults returns the built-in settings.
func Defaults() Config {
	return Config{
		Provider:       "anthropic",
		Search:         "native",
		SearchAlgo:     "bm25",
		Theme:          "auto",
		MaxSteps:       25,
		DeferThreshold: 0.1,

		FirstByteTimeout:  Duration(60 * time.Second),
		StreamIdleTimeout: Duration(5 * time.Minute),
		MaxRetryWait:      Duration(60 * time.Second),
	}
}

// DefaultPath is the user config file, $XDG_CONFIG_HOME/agent/config.json.
func DefaultPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "agent", "config.json")
}

// Load applies the file at path over c. A missing default file is fine; a
// file the user named must exist.
func (c *Config) Load(path string, explicit bool) error {
	f, err := Read(path, explicit)
	if f != nil {
		c.merge(*f)
	}
	return err
}

// ProjectPath is the project's config file in workdir, ./.agent/config.json.
func ProjectPath(workdir string) string {
	return filepath.Join(workdir, ".agent", "config.json")
}

// Merge applies the values src gives (non-zero ones) over dst: a later
// layer (a file, the flags) over an earlier one.
func Merge(dst *Config, src Config) { dst.merge(src) }

// Read parses the config file at path. A missing file is (nil, nil) unless
// the user named it (explicit).
func Read(path string, explicit bool) (*Config, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !explicit {
			return nil, nil
		}
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var f Config
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("parse config %s: %v (see README, Configuration)", path, err)
	}
	// merge skips zero values, so a negative one would vanish unnoticed.
	if f.MaxSteps < 0 {
		return nil, fmt.Errorf("config %s: max_steps must be at least 1, got %d", path, f.MaxSteps)
	}
	if f.MaxTokens < 0 {
		return nil, fmt.Errorf("config %s: max_tokens must be positive, got %d", path, f.MaxTokens)
	}
	if f.DeferThreshold < 0 {
		return nil, fmt.Errorf("config %s: defer_threshold must be positive (a share of the context window below 1, or a token count), got %g", path, f.DeferThreshold)
	}
	return &f, nil
}

func (c *Config) merge(f Config) {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&c.Provider, f.Provider)
	set(&c.Model, f.Model)
	set(&c.FallbackModel, f.FallbackModel)
	set(&c.BaseURL, f.BaseURL)
	set(&c.Search, f.Search)
	set(&c.SearchAlgo, f.SearchAlgo)
	set(&c.Theme, f.Theme)
	set(&c.System, f.System)
	set(&c.Effort, f.Effort)
	if f.MaxSteps > 0 {
		c.MaxSteps = f.MaxSteps
	}
	if f.MaxTokens > 0 {
		c.MaxTokens = f.MaxTokens
	}
	if f.DeferThreshold > 0 {
		c.DeferThreshold = f.DeferThreshold
	}
	if len(f.ProviderTools) > 0 {
		c.ProviderTools = f.ProviderTools
	}
	if len(f.RequireApproval) > 0 {
		c.RequireApproval = f.RequireApproval
	}
	if len(f.NativeSearchModels) > 0 {
		c.NativeSearchModels = f.NativeSearchModels
	}
	if len(f.Models) > 0 {
		if c.Models == nil {
			c.Models = map[string]models.Override{}
		}
		for k, v := range f.Models {
			c.Models[k] = v
		}
	}
	if len(f.MCPServers) > 0 {
		c.MCPServers = f.MCPServers
	}
	if len(f.Agents) > 0 {
		c.Agents = f.Agents
	}
	if f.AutoCompact != nil {
		c.AutoCompact = f.AutoCompact
	}
	if f.FirstByteTimeout > 0 {
		c.FirstByteTimeout = f.FirstByteTimeout
	}
	if f.StreamIdleTimeout > 0 {
		c.StreamIdleTimeout = f.StreamIdleTimeout
	}
	if f.MaxRetryWait > 0 {
		c.MaxRetryWait = f.MaxRetryWait
	}
}

// FromEnv applies AGENT_* variables.
func (c *Config) FromEnv(getenv func(string) string) {
	if v := getenv("AGENT_PROVIDER"); v != "" {
		c.Provider = v
	}
	if v := getenv("AGENT_MODEL"); v != "" {
		c.Model = v
	}
	if v := getenv("AGENT_SEARCH"); v != "" {
		c.Search = v
	}
	if v := getenv("AGENT_THEME"); v != "" {
		c.Theme = v
	}
}

// Validate checks values that have a closed set.
func (c *Config) Validate() error {
	switch c.Search {
	case "native", "client", "off":
	default:
		return fmt.Errorf("unknown search mode %q: use native, client or off", c.Search)
	}
	switch c.SearchAlgo {
	case "bm25", "regex":
	default:
		return fmt.Errorf("unknown search algorithm %q: use bm25 or regex", c.SearchAlgo)
	}
	switch c.Effort {
	case "", "none", "minimal", "low", "medium", "high", "max":
	default:
		return fmt.Errorf("unknown effort %q: use none, minimal, low, medium, high or max", c.Effort)
	}
	if c.MaxTokens < 0 {
		return fmt.Errorf("max tokens must be positive, got %d", c.MaxTokens)
	}
	if _, err := c.ModelTable(); err != nil {
		return err
	}
	if c.MaxSteps < 1 {
		return fmt.Errorf("max steps must be at least 1, got %d", c.MaxSteps)
	}
	return nil
}

// ModelTable is the built-in capability table with the file's "models"
// entries and native_search_models applied.
func (c *Config) ModelTable() (*models.Table, error) {
	t, err := (*models.Table)(nil).With(c.Models)
	if err != nil {
		return nil, err
	}
	return t.WithNativeSearch(c.NativeSearchModels)
}
