package app

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/registry"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/permission"
)

// perms is the run's permission state: the policy made from the settings
// (and the "always" answers), the mode the user may change mid-session, and
// the PreToolUse step that runs before the rules.
type perms struct {
	mu     sync.Mutex
	policy *permission.Policy
	mode   permission.Mode
	// bypassOK puts bypass in the shift+tab cycle: the run started in it.
	bypassOK bool
	// added are the "always" answers of this run (every scope): they
	// outlive a profile switch, which makes the policy again from the
	// settings read at start.
	added permission.Rules
	// preToolUse, when set, decides first (PreToolUse hooks); its decision
	// is folded into the rules' by permission.Combine.
	preToolUse permission.Func
	// parent is the App of a subagent's parent: its mode is the one that
	// holds (shift+tab during the subagent's run included).
	parent *App
	// hosted are the provider tools the settings enable; plan mode sends
	// only the read-only ones (modeNote).
	hosted []agent.ProviderTool
}

// inheritPermissions makes a subagent's App follow its parent's mode and
// the "always" answers of the parent's run.
func (a *App) inheritPermissions(parent *App) {
	parent.perms.mu.Lock()
	rules := append([]permission.Rule(nil), parent.perms.added.Allow...)
	parent.perms.mu.Unlock()
	a.perms.mu.Lock()
	a.perms.parent = parent
	a.perms.mu.Unlock()
	for _, r := range rules {
		a.addAllow(r.Pattern, r.Scope)
	}
}

// newPolicy reads the permission settings: permissions (the config files'
// and the project's settings.local.json), require_approval and
// approve_read_only.
func newPolicy(s Settings) (*permission.Policy, error) {
	p := &permission.Policy{RequireApproval: s.RequireApproval}
	if s.ApproveReadOnly != nil {
		p.ApproveReadOnly = *s.ApproveReadOnly
	}
	for _, l := range []struct {
		what  string
		b     permission.Behavior
		list  []string
		scope permission.Scope
	}{
		{"require_approval", permission.Ask, s.RequireApproval, ""},
		{"permissions.deny", permission.Deny, s.Permissions.Deny, permission.ScopeConfig},
		{"permissions.ask", permission.Ask, s.Permissions.Ask, permission.ScopeConfig},
		{"permissions.allow", permission.Allow, s.Permissions.Allow, permission.ScopeConfig},
		{LocalSettingsPath(s.Workdir) + ": permissions.deny", permission.Deny, s.local.Deny, permission.ScopeProject},
		{LocalSettingsPath(s.Workdir) + ": permissions.ask", permission.Ask, s.local.Ask, permission.ScopeProject},
		{LocalSettingsPath(s.Workdir) + ": permissions.allow", permission.Allow, s.local.Allow, permission.ScopeProject},
	} {
		for _, pat := range l.list {
			if err := permission.Check(l.what, pat); err != nil {
				return nil, usage(err)
			}
			if l.scope != "" {
				p.Rules.Add(l.b, pat, l.scope)
			}
		}
	}
	return p, nil
}

// setPolicy replaces the policy (a new profile's settings); this run's
// "always" answers stay.
func (a *App) setPolicy(p *permission.Policy) {
	a.perms.mu.Lock()
	defer a.perms.mu.Unlock()
	for _, r := range a.perms.added.Allow {
		p.Rules.Add(permission.Allow, r.Pattern, r.Scope)
	}
	a.perms.policy = p
}

// startMode sets the mode the run starts in (permission_mode).
func (a *App) startMode(s Settings) error {
	m, err := permission.ParseMode(s.PermissionMode)
	if err != nil {
		return usage(err)
	}
	a.perms.mu.Lock()
	a.perms.mode, a.perms.bypassOK = m, m == permission.ModeBypass
	a.perms.mu.Unlock()
	return nil
}

// permit is the session's Permit, called before each tool runs: the
// PreToolUse step first, then the rules in the current mode.
func (a *App) permit(ctx context.Context, c permission.Call) permission.Decision {
	a.perms.mu.Lock()
	p, hook := a.perms.policy, a.perms.preToolUse
	a.perms.mu.Unlock()
	mode := a.PermissionMode()
	t := c.Tool
	if mode == permission.ModePlan && t.Name == RunAgentTool && t.Server == "" && len(a.subs) > 0 {
		// A subagent runs in its parent's mode (inheritPermissions): in
		// plan mode its own calls are refused but for read-only tools,
		// so the run is read-only as a whole, and plan mode lets it run.
		ro := true
		t.Annotations = &tools.Annotations{ReadOnly: &ro}
	}
	d := p.Decide(t, mode)
	if hook != nil {
		d = permission.Combine(hook(ctx, c), d)
	}
	return d
}

// PermissionMode is the current permission mode.
func (a *App) PermissionMode() permission.Mode {
	a.perms.mu.Lock()
	m, parent := a.perms.mode, a.perms.parent
	a.perms.mu.Unlock()
	if parent != nil {
		return parent.PermissionMode()
	}
	return cmp.Or(m, permission.ModeDefault)
}

// SetPermissionMode changes the mode. Tool calls follow it at once; what
// the model is told of it (plan mode's note) changes at the next turn.
func (a *App) SetPermissionMode(m permission.Mode) error {
	if _, err := permission.ParseMode(string(m)); err != nil {
		return err
	}
	a.perms.mu.Lock()
	defer a.perms.mu.Unlock()
	if m == permission.ModeBypass && !a.perms.bypassOK {
		return fmt.Errorf("bypass mode is only for a run started with --permission-mode bypass")
	}
	a.perms.mode = m
	return nil
}

// CyclePermissionMode moves to the next mode (shift+tab): default,
// accept-reads, plan, and bypass when the run started in it.
func (a *App) CyclePermissionMode() permission.Mode {
	a.perms.mu.Lock()
	defer a.perms.mu.Unlock()
	a.perms.mode = a.perms.mode.Next(a.perms.bypassOK)
	return a.perms.mode
}

// modeNote puts the mode's note in the session's system context at a turn
// boundary (Send): plan mode tells the model what it may not do, and
// leaves out the hosted tools that act (code execution, the MCP
// connector), which the provider would run without asking. Both change
// only here, so the tools array stays the same bytes within a turn and
// changes once when the mode does.
func (a *App) modeNote() {
	note := ""
	a.perms.mu.Lock()
	pts := a.perms.hosted
	a.perms.mu.Unlock()
	if a.PermissionMode() == permission.ModePlan {
		note = permission.PlanNote
		pts = planHosted(a.Provider(), pts)
	}
	tc := a.session.TurnContext()
	if tc.ModeNote != note || !slices.EqualFunc(tc.ProviderTools, pts, sameProviderTool) {
		_ = a.session.Override(func(tc *agent.TurnContext) { tc.ModeNote, tc.ProviderTools = note, pts })
	}
}

// setHosted records the provider tools the settings enable.
func (a *App) setHosted(pts []agent.ProviderTool) {
	a.perms.mu.Lock()
	a.perms.hosted = pts
	a.perms.mu.Unlock()
}

// planHosted is what plan mode keeps of pts: the tools the provider says
// only read.
func planHosted(provider string, pts []agent.ProviderTool) []agent.ProviderTool {
	d, _ := registry.Lookup(provider)
	var out []agent.ProviderTool
	for _, pt := range pts {
		if d.Hosted != nil && d.Hosted.ReadOnly != nil && d.Hosted.ReadOnly(pt) {
			out = append(out, pt)
		}
	}
	return out
}

func sameProviderTool(a, b agent.ProviderTool) bool {
	return a.Alias == b.Alias && bytes.Equal(a.Options, b.Options) && bytes.Equal(a.Raw, b.Raw)
}

// AllowAlways saves an "always" answer to the approval request id for the
// tool named name, or for its whole server when server is set: for this
// session, this project (.agent/settings.local.json) or the user (the user
// config file). It applies at once, to a subagent that asked too.
func (a *App) AllowAlways(id, name string, server bool, scope permission.Scope) error {
	owner := a
	a.mu.Lock()
	if k, ok := a.kids[id]; ok {
		owner = k.app
	}
	a.mu.Unlock()
	t, ok := owner.session.Tools().Lookup(name)
	if !ok {
		return fmt.Errorf("no tool %s in this session", name)
	}
	pattern := permission.ToolPattern(*t)
	if server {
		if t.Server == "" {
			return fmt.Errorf("%s is not an MCP server's tool", name)
		}
		pattern = permission.ServerPattern(t.Server)
	}
	var err error
	switch scope {
	case permission.ScopeSession:
	case permission.ScopeProject:
		err = saveLocalAllow(a.settings.Workdir, pattern)
	case permission.ScopeUser:
		err = saveUserAllow(a.settings.ConfigPath, pattern)
	default:
		err = fmt.Errorf("unknown scope %q", scope)
	}
	if err != nil {
		return err
	}
	a.perms.mu.Lock()
	a.perms.added.Add(permission.Allow, pattern, scope)
	a.perms.mu.Unlock()
	a.addAllow(pattern, scope)
	if owner != a {
		owner.addAllow(pattern, scope)
	}
	return nil
}

// addAllow adds an allow rule to the live policy, copied on write: a call
// being decided keeps the policy it read.
func (a *App) addAllow(pattern string, scope permission.Scope) {
	a.perms.mu.Lock()
	defer a.perms.mu.Unlock()
	np := permission.Policy{}
	if a.perms.policy != nil {
		np = *a.perms.policy
	}
	np.Rules.Allow = append([]permission.Rule(nil), np.Rules.Allow...)
	np.Rules.Add(permission.Allow, pattern, scope)
	a.perms.policy = &np
}

// Unattended is the -p answer to an approval request: nobody is there to
// ask, so the call is refused with a reason the model reads, unless the
// user passed --yes (yes), which allows it.
func (a *App) Unattended(id, name string, yes bool) bool {
	d := permission.Decision{Behavior: permission.Allow, Source: permission.SourceUnattended, Reason: "--yes"}
	if !yes {
		d = permission.Decision{Behavior: permission.Deny, Source: permission.SourceUnattended,
			Reason: fmt.Sprintf("%s was not run: it needs the user's approval and agent runs without anyone to ask (print mode, -p). Do not retry it; tell the user it needs approval (rerun with --yes, or allow it with a permissions.allow rule).", name)}
	}
	return a.decide(id, d)
}

// decide answers an approval request of the session, or of the running
// subagent that asked it (its id names the run_agent call).
func (a *App) decide(id string, d permission.Decision) bool {
	return a.session.Decide(id, d) || a.decideChild(id, d)
}
