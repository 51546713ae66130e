package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/config/agents"
	"github.com/agent-dev/agent/providers/registry"
	"github.com/agent-dev/agent/tools"
)

// Profiles loads the agent profiles this run sees: the config file's
// "agents", the user's and, in a trusted directory, the project's.
func (s Settings) Profiles() *agents.Set {
	dirs := agents.DefaultDirs(s.Workdir)
	if !s.Trusted {
		dirs.Project = ""
	}
	return agents.Load(dirs, s.ConfigPath)
}

// useProfile applies the named profile under the flags given.
func (s *Settings) useProfile(name string) error {
	p, err := s.Profiles().Find(name)
	if err != nil {
		return usage(err)
	}
	return usage(s.applyProfile(p, s.Flags.Changed))
}

// applyProfile puts a profile's settings over the config files and the
// environment, wherever no flag was given (changed): flags still win. A
// model alias the profile names (sonnet) becomes its provider's model id.
func (s *Settings) applyProfile(p agents.Profile, changed map[string]bool) error {
	if p.Provider != "" && p.Model == "" && !changed["model"] {
		s.Model = "" // the provider's default, not a model of another provider
	}
	for _, k := range config.Keys() {
		switch {
		case !k.Profile || !k.IsSet(&p.Config) || changed[k.Flag]:
		case k.Name == "provider_tools", k.Name == "require_approval":
			// They add up rather than replace (below).
		default:
			k.Copy(&s.Config, &p.Config)
		}
	}
	if len(p.ProviderTools) > 0 {
		s.ProviderTools = append(append([]string(nil), p.ProviderTools...), s.Flags.ProviderTools...)
	}
	s.RequireApproval = append(append([]string(nil), s.RequireApproval...), p.RequireApproval...)
	if len(p.MCP) > 0 && !changed["mcp"] {
		s.MCP = append([]string(nil), p.MCP...)
	}
	if p.Defer != "" && len(p.DeferTools) == 0 && !changed["defer"] {
		s.Defer = p.Defer
	}
	s.Agent = p.Name
	s.profile = &p
	return s.resolveAliases(p, changed)
}

// resolveAliases replaces Claude Code's model aliases the profile p names
// (model, fallback_model) by the ids they stand for on the provider the
// profile runs on, from the provider's descriptor; a provider with no such
// model is a one-line error naming the profile's file and what to write.
func (s *Settings) resolveAliases(p agents.Profile, changed map[string]bool) error {
	for _, f := range []struct {
		key      string
		set, dst *string
	}{{"model", &p.Model, &s.Model}, {"fallback_model", &p.FallbackModel, &s.FallbackModel}} {
		alias := strings.ToLower(*f.set)
		if !isModelAlias(alias) || changed[f.key] || changed[strings.ReplaceAll(f.key, "_", "-")] {
			continue
		}
		if id := s.aliasModel(alias); id != "" {
			*f.dst = id
			continue
		}
		what := "a model id it serves"
		if d, _ := registry.Lookup(s.Provider); d.DefaultModel != "" {
			what += fmt.Sprintf(" (%s: %s)", f.key, d.DefaultModel)
		}
		return fmt.Errorf("%s: agent profile %s: %s %q is a Claude alias and provider %s serves no Claude model by that name: write %s, set %s, or set provider: anthropic",
			p.Path, p.Name, f.key, *f.set, s.Provider, what, aliasEnv(alias))
	}
	return nil
}

// aliasModel is the model id a Claude alias stands for on the run's
// provider: the user's pin (ANTHROPIC_DEFAULT_SONNET_MODEL, its config
// key), else the provider's descriptor; "" when the provider serves no
// Claude and nothing is pinned.
func (s *Settings) aliasModel(alias string) string { return s.aliasModelOn(s.Provider, alias) }

// aliasModelOn is aliasModel on provider prov.
func (s *Settings) aliasModelOn(prov, alias string) string {
	pinned := map[string]string{"sonnet": s.DefaultSonnetModel, "opus": s.DefaultOpusModel, "haiku": s.DefaultHaikuModel}[alias]
	if pinned = strings.TrimSpace(pinned); pinned != "" {
		return pinned
	}
	d, _ := registry.Lookup(prov)
	return d.Aliases[alias]
}

// modelOn resolves a model the user named (--model, /model, the config's
// model, fallback_model or subagent_model) on provider prov, as a
// profile's is: a Claude alias becomes the id it stands for, anything else
// is returned as it is. Behind --base-url an alias the provider's table
// lacks is sent as it is (a proxy may serve it). what names the setting in
// the error: "--model".
func (s *Settings) modelOn(prov, name, what string) (string, error) {
	alias := strings.ToLower(strings.TrimSpace(name))
	if !isModelAlias(alias) {
		return name, nil
	}
	if id := s.aliasModelOn(prov, alias); id != "" {
		return id, nil
	}
	if s.BaseURL != "" {
		return name, nil
	}
	id := "a model id it serves"
	if d, _ := registry.Lookup(prov); d.DefaultModel != "" {
		id += " (" + d.DefaultModel + ")"
	}
	return "", Usagef("%s %s: %s is a Claude alias and provider %s serves no Claude model by that name: name %s, set %s, or use provider anthropic",
		what, name, alias, prov, id, aliasEnv(alias))
}

// resolveModels resolves the aliases of model and fallback_model, naming
// the flag in an error when one was given, else the config key.
func (s *Settings) resolveModels() error {
	for _, f := range []struct {
		key, flag string
		dst       *string
	}{{"model", "model", &s.Model}, {"fallback_model", "fallback-model", &s.FallbackModel}} {
		what := f.key
		if s.Flags.Changed[f.flag] {
			what = "--" + f.flag
		}
		id, err := s.modelOn(s.Provider, *f.dst, what)
		if err != nil {
			return err
		}
		*f.dst = id
	}
	return nil
}

// aliasEnv names the variable that pins an alias.
func aliasEnv(alias string) string {
	return "ANTHROPIC_DEFAULT_" + strings.ToUpper(alias) + "_MODEL"
}

// isModelAlias tells whether m is one of Claude Code's model aliases an
// agent file may name instead of a model id.
func isModelAlias(m string) bool { return m == "sonnet" || m == "opus" || m == "haiku" }

// toolPolicy is the profile's allow list and deferral list as the tool
// set's registration policy; nil functions when the profile has none.
func (s Settings) toolPolicy() (allow, deferIf func(tools.Tool) bool) {
	p := s.profile
	if p == nil {
		return nil, nil
	}
	if len(p.Tools) > 0 || len(p.Deny) > 0 {
		allow = func(t tools.Tool) bool {
			in := len(p.Tools) == 0 || agents.Match(p.Tools, t.Name, t.Server) || t.Orig != "" && agents.Match(p.Tools, t.Orig, t.Server)
			return in && !agents.Match(p.Deny, t.Name, t.Server) && (t.Orig == "" || !agents.Match(p.Deny, t.Orig, t.Server))
		}
	}
	if len(p.DeferTools) > 0 && !s.Flags.Changed["defer"] {
		deferIf = func(t tools.Tool) bool {
			return p.Defers(t.Name, t.Server) || (t.Orig != "" && p.Defers(t.Orig, t.Server))
		}
	}
	return allow, deferIf
}

// SetAgent switches to the profile name (/agent NAME): its model, prompt,
// search mode, limits, provider tools, approvals and tool list apply from
// the next request on; the conversation is kept, as with SetModel. It
// returns notes for the user, one a line. During a turn it changes nothing
// and fails with agent.ErrBusy.
func (a *App) SetAgent(name string) (string, error) {
	p, err := a.settings.Profiles().Find(strings.TrimSpace(name))
	if err != nil {
		return "", err
	}
	if a.isDemo() {
		return "", fmt.Errorf("the demo runs its scripted model; run agent --agent %s without --demo", p.Name)
	}
	// A switch made now wins over the flags the program started with; it
	// is made on a copy, kept once the session took it.
	c := a.settings
	if err := c.applyProfile(p, nil); err != nil {
		return "", err
	}
	pr, model := a.session.Target()
	prov := a.Provider()
	if p.Provider != "" {
		prov = p.Provider
	}
	if prov != a.Provider() {
		np, def, err := NewProvider(c, prov, a.opts.Getenv)
		if err != nil {
			return "", fmt.Errorf("switch to %s: %w", prov, running(err))
		}
		pr, model = np, def
	}
	if p.Model != "" {
		model = c.Model // an alias resolved
	}
	mode, err := agent.ParseSearchMode(c.Search)
	if err != nil {
		return "", err
	}
	pts, err := parseProviderTools(c.ProviderTools)
	if err != nil {
		return "", err
	}
	policy, err := newPolicy(c)
	if err != nil {
		return "", err
	}
	// The session's turn context follows the settings the profile changed,
	// as build made it from them.
	system := a.system(c.System)
	if err := a.session.Override(func(tc *agent.TurnContext) {
		tc.Provider, tc.Model = pr, model
		tc.System, tc.Search, tc.MaxTokens, tc.Effort, tc.ProviderTools = system, mode, c.MaxTokens, c.Effort, pts
		tc.DeferToFit = c.Defer == "auto"
		if p.FallbackModel != "" {
			tc.Fallback, tc.FallbackModel = pr, c.FallbackModel
		}
	}); err != nil {
		return "", err
	}
	a.setHosted(pts)
	a.mu.Lock()
	a.label = prov
	a.mu.Unlock()
	a.settings = c
	a.setPolicy(policy)
	return a.applyProfileTools(p, pts)
}

// applyProfileTools filters the servers' tools again by the profile's tool
// list, applies its deferral and stores the switch with the session.
func (a *App) applyProfileTools(p agents.Profile, pts []agent.ProviderTool) (string, error) {
	set := a.session.Tools()
	var notes []string
	set.SetPolicy(a.settings.toolPolicy())
	if a.mcp != nil {
		if err := a.mcp.Register(set, false); err != nil {
			return "", err
		}
	}
	for _, t := range set.All() {
		switch {
		case len(p.DeferTools) > 0:
			set.SetDeferred(t.Name, p.Defers(t.Name, t.Server) || t.Orig != "" && p.Defers(t.Orig, t.Server))
		case p.Defer == "true" && t.Server != "":
			set.SetDeferred(t.Name, true)
		case p.Defer == "false":
			set.SetDeferred(t.Name, false)
		}
	}
	if p.Defer == "auto" {
		_, model := a.session.Target()
		a.applyAutoDefer(a.configured, model)
	}
	connected := map[string]bool{}
	for _, t := range set.All() {
		connected[t.Server] = true
	}
	for _, srv := range p.MCP {
		if !connected[srv] {
			notes = append(notes, fmt.Sprintf("server %s is not connected in this session: start agent --agent %s to connect it", srv, p.Name))
		}
	}
	if p.Theme != "" {
		notes = append(notes, "the theme applies at the next start")
	}
	notes = append(notes, "the tools array may change, so the next request reads the prompt without the cache once")

	a.mu.Lock()
	ss := a.stored
	a.mu.Unlock()
	if ss != nil {
		pr, model := a.session.Target()
		meta := ss.Meta()
		meta.Provider, meta.API, meta.Model = a.Provider(), pr.API(), model
		// The profile's keys change; the servers and deferral the session
		// runs with do not (they need a restart).
		old, st := meta.Settings, a.settings.stored(pts)
		st.Defer, st.DeferTools, st.MCPServers, st.NoStream = old.Defer, old.DeferTools, old.MCPServers, old.NoStream
		for k, v := range old.Extra {
			if st.Extra[k] == nil {
				_ = st.SetValue(k, v)
			}
		}
		meta.Settings = st
		if err := ss.UpdateMeta(context.Background(), meta); err != nil {
			return "", err
		}
	}
	return strings.Join(notes, "\n"), nil
}

// Compact summarises the conversation so far (/compact, agent sessions
// compact): later requests send the summary instead; the store keeps
// every message.
func (a *App) Compact(ctx context.Context, focus string) (*agent.Compaction, error) {
	// Its summary request is a chat span under a "compact" span, failed
	// or not.
	ctx, span := a.startSpan(ctx, "", true)
	defer span.End()
	// A PreCompact hook's notes are the run's notices.
	c, err := a.session.Compact(ctx, focus, func(ev agent.Event) {
		span.Observe(ev)
		if ev.Type == agent.EventWarning {
			a.Notice(ev.Text)
		}
	})
	if err != nil && !errors.Is(err, agent.ErrNothingToCompact) {
		span.Observe(agent.Event{Type: agent.EventError, Err: err, Served: agent.FailedRequest(err)})
	}
	if c != nil {
		p, model := a.session.Target()
		a.spent(p.Name(), model, c.Usage)
		a.hooks.startedIdle(a.hooks.sessionStart(ctx, "compact"))
	}
	return c, err
}

// CompactionLine is the one-line account of a compaction, shared by the
// shell command, print mode and the TUI's notices.
func CompactionLine(c agent.Compaction) string {
	kept := ""
	if n := len(c.Found); n > 0 {
		kept = fmt.Sprintf("; %d found tools stay loaded", n)
	}
	return fmt.Sprintf("%d messages summarised: context about %d → %d tokens (estimated)%s; the summary took %d input and %d output tokens",
		c.Boundary, c.Before, c.After, kept, c.Usage.InputTokens+c.Usage.CacheReadTokens+c.Usage.CacheWriteTokens, c.Usage.OutputTokens)
}

// AgentRow is one profile of `agent agents --json`.
type AgentRow struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source"`
	Path        string `json:"path"`
	Provider    string `json:"provider,omitempty"`
	Model       string `json:"model,omitempty"`
	// ModelID is the id an alias model (sonnet) stands for on the
	// profile's provider; "" when model is an id already. FallbackModelID
	// likewise.
	ModelID         string   `json:"model_id,omitempty"`
	FallbackModel   string   `json:"fallback_model,omitempty"`
	FallbackModelID string   `json:"fallback_model_id,omitempty"`
	MCP             []string `json:"mcp,omitempty"`
	Defer           string   `json:"defer,omitempty"`
	DeferTools      []string `json:"defer_tools,omitempty"`
	Tools           []string `json:"tools,omitempty"`
	Search          string   `json:"search,omitempty"`
	PromptChars     int      `json:"prompt_chars"`
	// Subagent: the model may run it with run_agent.
	Subagent bool `json:"subagent,omitempty"`
}

// AgentsList is what agent agents reports.
type AgentsList struct {
	Agents []AgentRow `json:"agents"`
	Errors []string   `json:"errors"`
}

// AgentsReport lists the profiles this run sees and the errors reading them.
func AgentsReport(settings Settings) AgentsList {
	set := settings.Profiles()
	rep := AgentsList{Agents: []AgentRow{}, Errors: []string{}}
	for _, p := range set.List() {
		// An alias is shown with the id it stands for on the provider the
		// profile runs on (its own, else the run's).
		on := settings
		if p.Provider != "" {
			on.Provider = p.Provider
		}
		resolve := func(m string) string {
			if !isModelAlias(strings.ToLower(m)) {
				return ""
			}
			return on.aliasModel(strings.ToLower(m))
		}
		rep.Agents = append(rep.Agents, AgentRow{Name: p.Name, Description: p.Description, Source: p.Source, Path: p.Path,
			Provider: p.Provider, Model: p.Model, ModelID: resolve(p.Model), FallbackModel: p.FallbackModel,
			FallbackModelID: resolve(p.FallbackModel), MCP: p.MCP, Defer: p.Defer, DeferTools: p.DeferTools, Tools: p.Tools,
			Search: p.Search, PromptChars: len(p.System), Subagent: p.Subagent})
	}
	for _, err := range set.Errors {
		rep.Errors = append(rep.Errors, err.Error())
	}
	return rep
}
