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
	"reflect"
	"strconv"
	"time"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/models"
)

// Config is what shapes a run: each field is one setting, declared once
// by its tags (see keys.go); the merge, the flags, the agent profiles, the
// stored session and docs/config.md all read the declaration. Secrets are
// never part of it: API keys are read from the environment by the provider
// wiring and never stored.
type Config struct {
	Provider      string `json:"provider,omitempty" default:"anthropic" flag:"provider" env:"AGENT_PROVIDER" profile:"" doc:"provider: anthropic, openai (Responses), openai-chat, ollama, llamacpp, vllm, lmstudio, openrouter, groq, deepseek, mistral, gemini (native), gemini-openai, vertex, vertex-gemini, bedrock, azure"`
	Model         string `json:"model,omitempty" flag:"model" env:"AGENT_MODEL" profile:"" doc:"model id, or sonnet, opus or haiku: the provider's newest of that Claude family (default_*_model pins them)"`
	FallbackModel string `json:"fallback_model,omitempty" flag:"fallback-model,root" profile:"" stored:"" doc:"model to switch to when the provider stays overloaded (a model id, or sonnet, opus or haiku)"`
	// The model ids Claude Code's aliases stand for, pinned by the user
	// (Claude Code's variables); unset, the provider's descriptor says.
	DefaultSonnetModel string `json:"default_sonnet_model,omitempty" env:"ANTHROPIC_DEFAULT_SONNET_MODEL" doc:"the model id the alias sonnet (in --model, /model, model, fallback_model, subagent_model or an agent profile) stands for, in the provider's own spelling (default: the provider's newest Sonnet the agent knows)"`
	DefaultOpusModel   string `json:"default_opus_model,omitempty" env:"ANTHROPIC_DEFAULT_OPUS_MODEL" doc:"the model id the alias opus stands for, in the provider's own spelling (default: the provider's newest Opus the agent knows)"`
	DefaultHaikuModel  string `json:"default_haiku_model,omitempty" env:"ANTHROPIC_DEFAULT_HAIKU_MODEL" doc:"the model id the alias haiku stands for, in the provider's own spelling (default: the provider's newest Haiku the agent knows)"`
	BaseURL            string `json:"base_url,omitempty" flag:"base-url" doc:"API base URL (overrides the provider's default and *_BASE_URL)"`
	Search             string `json:"search,omitempty" default:"native" flag:"search" env:"AGENT_SEARCH" profile:"" stored:"" enum:"native,client,off" what:"search mode" doc:"tool search: native (provider's own where it has one), client (the agent's engine) or off (send every tool)"`
	SearchAlgo         string `json:"search_algo,omitempty" default:"bm25" flag:"search-algo,root" stored:"" enum:"bm25,regex" what:"search algorithm" doc:"native search variant where there is a choice: bm25 or regex"`
	Theme              string `json:"theme,omitempty" default:"auto" flag:"theme,root" env:"AGENT_THEME" profile:"" doc:"TUI theme: auto, dark, light, catppuccin, dracula"`
	MaxSteps           int    `json:"max_steps,omitempty" default:"25" flag:"max-steps,root" profile:"" check:"must be at least 1" doc:"most provider requests in one turn"`
	MaxTokens          int    `json:"max_tokens,omitempty" flag:"max-tokens" profile:"" stored:"" doc:"output token limit of each request (default: the model's, from the models table)"`
	Effort             string `json:"effort,omitempty" flag:"effort" profile:"" enum:"none,minimal,low,medium,high,max" doc:"reasoning effort: none, minimal, low, medium, high or max (mapped to what the model accepts)"`
	System             string `json:"system,omitempty" flag:"system,root" profile:"" stored:"" doc:"system prompt"`
	// ProviderTools adds up: a profile's come before the flags' (app.Load).
	ProviderTools []string `json:"provider_tools,omitempty" flag:"provider-tool,root" profile:"" stored:"" doc:"enable a provider-hosted tool: NAME[:JSON options] or a raw JSON definition (repeatable)"`
	// NativeSearchModels overrides the model table: model id → searches natively.
	NativeSearchModels map[string]bool `json:"native_search_models,omitempty" doc:"model id → whether it searches natively (overrides the models table)"`
	// Models declares or overrides entries of the capability table: model id
	// (or "prefix*") → capabilities (see the models package).
	Models map[string]models.Override `json:"models,omitempty" merge:"union" doc:"model id or prefix* → capabilities (context window, limits, search, reasoning); like names a model to start from"`
	// RequireApproval lists glob patterns of tool names ("github__*") or
	// "server:NAME" entries whose calls wait for the user's approval; a
	// profile's add to the run's.
	RequireApproval []string `json:"require_approval,omitempty" profile:"" doc:"tool name patterns or server:NAME whose calls wait for approval"`
	// DeferThreshold is the --defer auto budget: a token count, or when
	// below 1 a share of the model's context window.
	DeferThreshold float64 `json:"defer_threshold,omitempty" default:"0.1" check:"must be positive (a share of the context window below 1, or a token count)" doc:"the --defer auto budget: a share of the context window below 1, or a token count"`
	// WireBudget is the largest payload of deferred tool definitions a
	// request may carry, in bytes; past it search goes through the agent's
	// client forms, which send none (README, "Cost at any catalog size").
	// The default, 1 MB, is about 0.4 s of upload at 20 Mbit/s, roughly
	// what the extra round trip of a client search costs.
	WireBudget int `json:"wire_budget,omitempty" default:"1000000" check:"must be a positive number of bytes" doc:"largest payload of deferred tool definitions a request may carry, in bytes; past it search uses the client forms, which send none"`
	// MCPServers may be given inline in the config file too.
	MCPServers json.RawMessage `json:"mcpServers,omitempty" doc:"MCP servers, as in .mcp.json"`
	// FirstByteTimeout bounds the wait for a provider's first answer,
	// StreamIdleTimeout every pause in its stream.
	FirstByteTimeout  Duration `json:"first_byte_timeout,omitempty" default:"60s" doc:"longest wait for a provider's first answer"`
	StreamIdleTimeout Duration `json:"stream_idle_timeout,omitempty" default:"5m" doc:"longest pause in a provider's stream"`
	// MaxRetryWait is the longest retry-after honoured.
	MaxRetryWait Duration `json:"max_retry_wait,omitempty" default:"60s" doc:"longest retry-after honoured"`
	// MCPStartWait bounds how long a turn's first request waits for MCP
	// servers that have no cached tool list (esc in the TUI sends at once).
	MCPStartWait Duration `json:"mcp_start_wait,omitempty" default:"30s" doc:"longest wait of a turn's first request for MCP servers with no cached tool list"`
	// OAuthTimeout bounds a sign-in to a remote MCP server through the
	// browser in -p mode.
	OAuthTimeout Duration `json:"oauth_timeout,omitempty" default:"120s" doc:"longest wait for a sign-in to a remote MCP server through the browser in -p mode"`
	// OAuthClientMetadataURL is the HTTPS URL of a Client ID Metadata
	// Document describing the agent, used as its client_id where an
	// authorization server supports those (else it registers dynamically).
	OAuthClientMetadataURL string `json:"oauth_client_metadata_url,omitempty" doc:"HTTPS URL of a Client ID Metadata Document for the agent, its OAuth client_id where a server supports those"`
	// TokenStore is where sign-ins to remote MCP servers are kept; a
	// project cannot set it (it would say where credentials go).
	TokenStore string `json:"token_store,omitempty" default:"auto" env:"AGENT_TOKEN_STORE" enum:"auto,keychain,file" what:"token store" doc:"where sign-ins to remote MCP servers are kept: auto is the OS keychain where one answers, else files of mode 0600 in the data directory; user config or environment only"`
	// MCPCache false turns the MCP catalog cache off (as --no-cache does):
	// every start waits for every server to list its tools.
	MCPCache *bool `json:"mcp_cache,omitempty" doc:"false: no MCP catalog cache, as --no-cache (default true)"`
	// Agents holds named agent profiles (package config/agents reads them,
	// with their lines, from the file itself).
	Agents json.RawMessage `json:"agents,omitempty" doc:"named agent profiles (see Agent profiles)"`
	// AutoCompact is when a conversation is compacted before a request: a
	// share of the model's context window (default 0.8), or false for never.
	AutoCompact *AutoCompact `json:"auto_compact,omitempty" doc:"share of the context window that triggers compaction, or false (default 0.8)"`
	// Learn false stops tool search learning from use (as --no-learn does):
	// searches and calls are not recorded and earlier ones not used.
	Learn *bool `json:"learn,omitempty" doc:"false: tool search neither records nor learns from use, as --no-learn (default true)"`
	// MaxToolResultBytes caps one MCP tool result as it is read, so a
	// server cannot make the agent hold more than this in memory.
	// ProjectEnvAllow names the environment variables a trusted project's
	// MCP servers may expand with ${VAR}; only the user's config sets it.
	ProjectEnvAllow    []string `json:"project_env_allow,omitempty" doc:"environment variables a trusted project's MCP servers may expand with ${VAR} (user config only)"`
	MaxToolResultBytes int      `json:"max_tool_result_bytes,omitempty" default:"4194304" doc:"most bytes of one MCP tool result read from the server; past it the result is cut with a note saying by how much"`
	// Elicitation is how a run without a person (-p) answers an MCP
	// server's elicitation; --yes implies accept-defaults.
	Elicitation string `json:"elicitation,omitempty" default:"decline" enum:"decline,accept-defaults" what:"elicitation answer" doc:"how -p answers an MCP server's form: decline, or accept-defaults (the form's defaults; --yes implies it)"`
	// MCPLogLevel is the level asked of MCP servers that log; what they
	// send goes to the agent's log file, never the terminal.
	MCPLogLevel string `json:"mcp_log_level,omitempty" default:"warning" enum:"debug,info,notice,warning,error,critical,alert,emergency" what:"MCP log level" doc:"level asked of MCP servers that log (logging/setLevel); their messages go to the agent's log file"`
	// ApproveReadOnly lets tools their server marks readOnlyHint run
	// without asking, even when require_approval matches them.
	ApproveReadOnly *bool `json:"approve_read_only,omitempty" doc:"true: tools their MCP server marks readOnlyHint run without approval, whatever require_approval says (default false)"`
	// Permissions are the permission rules (README, "Permissions and
	// modes"); a project's deny and ask add to the user's, its allow is
	// refused (app.applyProject).
	Permissions Permissions `json:"permissions,omitempty" doc:"permission rules: {\"allow\", \"ask\", \"deny\"} lists of tool patterns (names, SERVER__TOOL, server:GLOB, @read-only, @destructive); deny wins, then ask, then allow"`
	// PermissionMode is the mode a run starts in (shift+tab changes it in
	// the TUI); a project may only make it stricter.
	PermissionMode string `json:"permission_mode,omitempty" default:"default" flag:"permission-mode,root" enum:"default,accept-reads,plan,bypass" what:"permission mode" doc:"permission mode: default, accept-reads (read-only tools run unasked), plan (only read-only tools run) or bypass (nothing asked; deny rules hold)"`
	// NoInstructions leaves the AGENTS.md (CLAUDE.md) instruction files
	// out of the system prompt; a resumed session keeps it.
	NoInstructions bool `json:"no_instructions,omitempty" flag:"no-instructions" stored:"" doc:"send no instruction files (AGENTS.md, CLAUDE.md) in the system prompt"`
	// Hooks are commands run at points of a session, in Claude Code's
	// format (package hooks); a trusted project's run besides the user's.
	Hooks hooks.Config `json:"hooks,omitempty" doc:"commands run at PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart and PreCompact, in Claude Code's format (see Hooks); a project's only once the directory is trusted, and besides the user's"`
	// Telemetry turns the OpenTelemetry export on (README, Telemetry);
	// where it goes is for the standard OTEL_* variables to say.
	Telemetry *bool `json:"telemetry,omitempty" env:"AGENT_ENABLE_TELEMETRY" doc:"true: export traces and metrics over OTLP to OTEL_EXPORTER_OTLP_ENDPOINT (default false; user config or environment only)"`
	// TelemetryLogContent puts what people and models wrote into spans.
	TelemetryLogContent *bool `json:"telemetry_log_content,omitempty" doc:"true: spans carry the prompt, tool arguments and results and search queries (default false; user config only)"`
	// SubagentModel is the model of a subagent whose profile names none,
	// before the parent's (app.forSubagent).
	SubagentModel string `json:"subagent_model,omitempty" env:"AGENT_SUBAGENT_MODEL" envalso:"CLAUDE_CODE_SUBAGENT_MODEL" doc:"the model of a subagent whose profile names none (a model id or sonnet, opus or haiku), instead of the parent's model; a profile's own model still wins"`
}

// Permissions are the allow, ask and deny lists of tool patterns, as in
// Claude Code's settings.
type Permissions struct {
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// UnmarshalJSON reads the three lists and refuses any other key, so a
// misspelt list (or Claude Code's defaultMode) is not silently ignored.
func (p *Permissions) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("must be an object: {\"allow\": [...], \"ask\": [...], \"deny\": [...]}")
	}
	lists := map[string]*[]string{"allow": &p.Allow, "ask": &p.Ask, "deny": &p.Deny}
	for k, raw := range m {
		dst, ok := lists[k]
		switch {
		case k == "defaultMode":
			return fmt.Errorf("defaultMode is not read here: set the key permission_mode (default, accept-reads, plan or bypass)")
		case !ok:
			return fmt.Errorf("unknown key %q: the lists are allow, ask and deny", k)
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("%s must be a list of tool patterns, e.g. [\"server:github\", \"@destructive\"]", k)
		}
	}
	return nil
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

// Defaults returns the built-in settings: the keys' default tags.
func Defaults() Config {
	Keys()
	return defaults
}

// DefaultPath is the user config file, $XDG_CONFIG_HOME/agent/config.json.
func DefaultPath() string {
	dir := UserDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "config.json")
}

// UserDir is the user's own directory of the agent, $XDG_CONFIG_HOME/agent
// (os.UserConfigDir), where config.json, AGENTS.md, agents/ and commands/
// live; "" when there is none.
func UserDir() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "agent")
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
	f, err := decode(path, b)
	if err != nil {
		return nil, err
	}
	// merge skips zero values, so a negative one would vanish unnoticed.
	for _, k := range Keys() {
		if v := k.field(&f); v.CanInt() && v.Int() < 0 || v.CanFloat() && v.Float() < 0 {
			line, col := position(b, keyOffset(b, int64(len(b)), k.Name))
			return nil, fmt.Errorf("%s:%d:%d: %q %s, got %v", path, line, col, k.Name, k.Check, v.Interface())
		}
	}
	return &f, nil
}

func (c *Config) merge(f Config) {
	for _, k := range Keys() {
		src := k.field(&f)
		if empty(src) {
			continue
		}
		dst := k.field(c)
		if k.Union && !dst.IsNil() {
			m := reflect.MakeMap(dst.Type())
			for _, d := range []reflect.Value{dst, src} {
				for it := d.MapRange(); it.Next(); {
					m.SetMapIndex(it.Key(), it.Value())
				}
			}
			dst.Set(m)
			continue
		}
		dst.Set(src)
	}
}

// FromEnv applies the keys' AGENT_* variables. A switch (a *bool key)
// reads 1, true, 0 or false; a key with a closed set refuses any other
// value naming the variable, which Validate's error after the merge could
// not (it knows the key, not where its value came from).
func (c *Config) FromEnv(getenv func(string) string) error {
	for _, k := range Keys() {
		if k.Env == "" {
			continue
		}
		v := getenv(k.Env)
		if v == "" && k.EnvAlso != "" {
			v = getenv(k.EnvAlso)
		}
		if v == "" {
			continue
		}
		f := k.field(c)
		if f.Kind() != reflect.Pointer {
			if k.check(v) != nil {
				return &EnvValueError{Var: k.Env, Value: v, What: k.What, Allowed: k.Enum}
			}
			f.SetString(v)
			continue
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%s=%q: write 1 or 0 (true or false)", k.Env, v)
		}
		f.Set(reflect.ValueOf(&b))
	}
	return nil
}

// Validate checks values that have a closed set.
func (c *Config) Validate() error {
	for _, k := range Keys() {
		if len(k.Enum) > 0 {
			if err := k.check(k.field(c).String()); err != nil {
				return err
			}
		}
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
