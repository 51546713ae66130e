// Package app is the application between the command line and the core:
// the settings of a run, resolved once; the runtime built from them (store,
// provider, MCP servers, search engine, session); the typed API print mode,
// the TUI and the token bench drive (Send, SetModel, Resume, New); and the
// reducer that folds a turn's events into its result.
package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/config/agents"
	"github.com/agent-dev/agent/providers/registry"
	"github.com/agent-dev/agent/store"
)

// Flags are the settings given on the command line. A zero value means
// "not given": the layers below decide.
type Flags struct {
	config.Config // provider, model, base URL, search, theme, …

	ConfigPath string // --config: the user config file to read instead of the default
	MCPConfig  string // --mcp-config
	MCP        []string
	Defer      string // "" | "true" | "false" | "auto"
	DBPath     string
	NoStream   bool
	NoCache    bool // --no-cache: no MCP catalog cache
	Refresh    bool // --refresh: agent tools, tools search and mcp list start every server (listing.go)
	NoLearn    bool // --no-learn: tool search does not learn from use
	Demo       bool
	Resume     string
	Continue   bool
	Workdir    string // the working directory (default: os.Getwd)
	Agent      string // --agent: the agent profile to use
	Trust      bool   // --trust: use this directory's project files for this run
	// preview is the trust question's load: ${VAR} in a project's servers
	// left as written, and no warning for what the question lists.
	preview bool
	// Changed names the flags given on the command line (a profile does
	// not override them; --max-steps 0 is an error, not "not given").
	Changed map[string]bool
}

// Settings is everything that shapes a run, resolved once by Load in one
// order: defaults, user config, project config, environment, flags; on
// resume the stored session's settings take the place of whatever no flag
// gave (Open), and Validate checks the result.
type Settings struct {
	config.Config

	ConfigPath string // the user config file that was read (for messages)
	MCPConfig  string
	MCP        []string
	Defer      string
	DBPath     string
	NoStream   bool
	NoCache    bool
	Refresh    bool
	NoLearn    bool
	Demo       bool
	Resume     string
	Continue   bool
	Workdir    string
	// Agent names the agent profile in use (--agent, or the resumed
	// session's); profile is it, loaded.
	Agent   string
	profile *agents.Profile

	// Flags are kept to tell, on resume, what the user gave explicitly.
	Flags Flags
	// Warnings are things Load ignored, to show once.
	Warnings []string
	// Project is the working directory's project files; Trusted says they
	// are used (the directory is trusted, or --trust). projectServers are
	// its MCP servers as a project may have them (applyProject).
	Project Project
	Trusted bool
	// ProjectSets names what of the provider, model and system prompt
	// the trusted project changed (said in the warnings and, in the TUI,
	// the status bar).
	ProjectSets    []string
	projectServers map[string]config.MCPServer
	// local are the rules of the project's settings.local.json that may be
	// used (applyLocal).
	local config.Permissions
}

// Load resolves the settings of a run (see Settings).
func Load(f Flags, getenv func(string) string) (Settings, error) {
	s := Settings{Config: config.Defaults(), Flags: f}
	if err := checkFlagValues(f); err != nil {
		return s, err
	}
	s.ConfigPath = f.ConfigPath
	if s.ConfigPath == "" {
		s.ConfigPath = config.DefaultPath()
	}
	if err := s.Config.Load(s.ConfigPath, f.ConfigPath != ""); err != nil {
		if f.ConfigPath != "" {
			// Said as the flag's, as --mcp-config's and --catalog's are:
			// "read config /x: open /x: no such file or directory" named
			// neither the flag nor what to give.
			return s, fileFlagError("config", f.ConfigPath, "a config file (a JSON object of settings: see docs/config.md), or leave out --config for "+config.DefaultPath(), err)
		}
		return s, usage(err)
	}
	if err := checkHooks(s.ConfigPath, s.Hooks); err != nil {
		return s, err
	}
	s.Workdir = f.Workdir
	if s.Workdir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return s, fmt.Errorf("find working directory: %w", err)
		}
		s.Workdir = wd
	}
	if err := s.applyProject(f.Trust); err != nil {
		return s, err
	}
	s.applyLocal()
	if err := s.Config.FromEnv(getenv); err != nil {
		return s, usage(err)
	}
	if err := config.CheckEnv("provider", getenv, registry.Names()); err != nil {
		return s, usage(err)
	}
	s.MCPConfig, s.DBPath = f.MCPConfig, f.DBPath
	s.NoStream, s.NoCache, s.NoLearn, s.Demo, s.Resume, s.Continue = f.NoStream, f.NoCache, f.NoLearn, f.Demo, f.Resume, f.Continue
	s.Refresh = f.Refresh
	if f.Agent != "" {
		// The profile's layer: over the files and the environment, under
		// the flags.
		if err := s.useProfile(f.Agent); err != nil {
			return s, err
		}
	}
	// --provider-tool adds to the configured ones (a profile's already
	// did); every other flag replaces.
	flags := f.Config
	switch {
	case len(flags.ProviderTools) == 0:
	case s.profile != nil && len(s.profile.ProviderTools) > 0:
		flags.ProviderTools = s.ProviderTools
	default:
		flags.ProviderTools = append(append([]string(nil), s.ProviderTools...), flags.ProviderTools...)
	}
	config.Merge(&s.Config, flags)
	// These take an explicit zero too (and Validate judges it).
	if f.Changed["max-steps"] {
		s.MaxSteps = f.MaxSteps
	}
	if f.Changed["max-tokens"] {
		s.MaxTokens = f.MaxTokens
	}
	if len(f.MCP) > 0 {
		s.MCP = f.MCP
	}
	if f.Defer != "" {
		s.Defer = f.Defer
	}
	if f.Changed["resume"] && strings.TrimSpace(f.Resume) == "" {
		return s, Usagef("--resume needs a session ID: list them with agent sessions, or use --continue for the newest")
	}
	if _, ok := registry.Lookup(s.Provider); !ok && s.Provider != "" {
		return s, usage(s.ValueError("provider", s.Provider, registry.Names(), getenv))
	}
	if err := s.resolveModels(); err != nil {
		return s, err
	}
	return s, s.Validate()
}

// checkFlagValues refuses a flag's value outside its closed set, naming
// the flag: checked after the merge, the error could not tell a flag from
// a file or a resumed session.
func checkFlagValues(f Flags) error {
	if err := config.CheckFlags(&f.Config); err != nil {
		return usage(err)
	}
	if err := config.CheckFlag("provider", f.Provider, registry.Names()); err != nil {
		return usage(err)
	}
	switch f.Defer {
	case "", "true", "false", "auto":
	default:
		return usage(&config.FlagValueError{Flag: "defer", Value: f.Defer, What: "defer setting", Allowed: []string{"true", "false", "auto"}})
	}
	return nil
}

// Validate checks the values that have a closed set.
func (s Settings) Validate() error {
	if err := s.Config.Validate(); err != nil {
		return usage(err)
	}
	switch s.Defer {
	case "", "true", "false", "auto":
	default:
		return Usagef("unknown --defer value %q: use true, false or auto", s.Defer)
	}
	if s.Resume != "" && s.Continue {
		return Usagef("--resume and --continue are exclusive: pick one")
	}
	if s.BaseURL != "" {
		if u, err := url.Parse(s.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Usagef("--base-url %q is not a URL: give the API's address with its scheme, e.g. https://api.example.com/v1 or http://127.0.0.1:11434/v1", s.BaseURL)
		}
	}
	return nil
}

// stored is the part of the settings kept with a session: the keys
// declared stored (config.Keys), the run options below and the parsed
// provider tools.
func (s Settings) stored(pts []agent.ProviderTool) store.Settings {
	st := store.Settings{Defer: s.Defer, MCPServers: s.MCP, ProviderTools: pts, NoStream: s.NoStream, Agent: s.Agent}
	for _, k := range config.Keys() {
		if k.Stored && k.Name != "provider_tools" && k.IsSet(&s.Config) {
			// A declared value always encodes.
			_ = st.SetValue(k.Name, k.Ptr(&s.Config))
		}
	}
	return st
}

// restore takes a resumed session's settings wherever no flag was given, so
// the tools array is rebuilt exactly as it was sent.
func (s *Settings) restore(m store.SessionMeta) {
	f, st := s.Flags, m.Settings
	if m.Provider == "demo" && f.Provider == "" {
		// A demo session resumes in the demo: its scripted model is the only
		// one that can continue it offline.
		s.Demo = true
	}
	was := s.Provider
	if f.Provider == "" && m.Provider != "" {
		s.Provider = m.Provider
	}
	if f.Model == "" && s.Provider == m.Provider {
		s.Model = m.Model
	} else if f.Model != "" && s.Provider != was {
		// --model sonnet was resolved on the run's provider; the session
		// resumes on its own.
		if id, err := s.modelOn(s.Provider, f.Model, "--model"); err == nil {
			s.Model = id
		}
	}
	for _, k := range config.Keys() {
		raw := st.Value(k.Name)
		if !k.Stored || raw == nil || f.Changed[k.Flag] || k.IsSet(&f.Config) {
			continue
		}
		if k.Name == "provider_tools" {
			s.ProviderTools = nil
			for _, pt := range st.ProviderTools {
				s.ProviderTools = append(s.ProviderTools, providerToolSpec(pt))
			}
			continue
		}
		var v config.Config
		if err := json.Unmarshal(raw, k.Ptr(&v)); err == nil {
			k.Copy(&s.Config, &v)
		}
	}
	if f.Defer == "" {
		s.Defer = st.Defer
	}
	if len(f.MCP) == 0 {
		s.MCP = st.MCPServers
	}
	s.NoStream = s.NoStream || st.NoStream
}

// PickSession is the value of --resume given without an ID: the TUI opens
// its session picker.
const PickSession = "\x00pick"

// UsageError is a mistake in how the program was called: exit code 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef makes a UsageError.
func Usagef(format string, a ...any) error { return &UsageError{fmt.Errorf(format, a...)} }

func usage(err error) error {
	var ue *UsageError
	if err == nil || errors.As(err, &ue) {
		return err
	}
	return &UsageError{err}
}
