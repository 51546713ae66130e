package app

import (
	"context"
	"fmt"
	"sync"

	"github.com/agent-dev/agent/tools/permission"
)

// perms is the run's permission state: the policy made from the settings
// (and the "always" answers), the mode the user may change mid-session, and
// the PreToolUse step that runs before the rules.
type perms struct {
	mu     sync.Mutex
	policy *permission.Policy
	mode   permission.Mode
	// preToolUse, when set, decides first (PreToolUse hooks); its decision
	// is folded into the rules' by permission.Combine.
	preToolUse permission.Func
}

// newPolicy reads the permission settings: require_approval and
// approve_read_only.
func newPolicy(s Settings) (*permission.Policy, error) {
	for _, p := range s.RequireApproval {
		if err := permission.Check("require_approval", p); err != nil {
			return nil, usage(err)
		}
	}
	p := &permission.Policy{RequireApproval: s.RequireApproval}
	if s.ApproveReadOnly != nil {
		p.ApproveReadOnly = *s.ApproveReadOnly
	}
	return p, nil
}

// setPolicy replaces the policy (a new profile's settings).
func (a *App) setPolicy(p *permission.Policy) {
	a.perms.mu.Lock()
	a.perms.policy = p
	a.perms.mu.Unlock()
}

// permit is the session's Permit, called before each tool runs: the
// PreToolUse step first, then the rules in the current mode.
func (a *App) permit(ctx context.Context, c permission.Call) permission.Decision {
	a.perms.mu.Lock()
	p, m, hook := a.perms.policy, a.perms.mode, a.perms.preToolUse
	a.perms.mu.Unlock()
	d := p.Decide(c.Tool, m)
	if hook != nil {
		d = permission.Combine(hook(ctx, c), d)
	}
	return d
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
