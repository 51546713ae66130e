// Package permission decides, before a tool runs, whether the call runs,
// is refused or waits for the user: the permission rules (allow, deny,
// ask), the permission mode, the "always" answers saved per session,
// project or user, and — through Combine — a PreToolUse hook's decision.
// It is provider-neutral: it knows tools (tools.Tool) and nothing of a
// provider or a front end.
package permission

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agent-dev/agent/tools"
)

// Behavior is what happens to a call: it runs, is refused, or waits for
// the user's answer. The words are Claude Code's permissionDecision values.
type Behavior string

const (
	Allow Behavior = "allow"
	Ask   Behavior = "ask"
	Deny  Behavior = "deny"
)

// ParseBehavior reads "allow", "ask" or "deny" (a hook's
// permissionDecision, say).
func ParseBehavior(s string) (Behavior, error) {
	switch b := Behavior(s); b {
	case Allow, Ask, Deny:
		return b, nil
	}
	return "", fmt.Errorf("unknown permission decision %q: use allow, ask or deny", s)
}

// Source says what made a decision.
type Source string

const (
	// SourceDefault: nothing matched; the call runs (the mode's default).
	SourceDefault Source = "default"
	// SourceRule: a pattern of permissions.allow, .deny or .ask (Rule
	// names it, Scope says where it was written).
	SourceRule Source = "rule"
	// SourceRequireApproval: a require_approval pattern (an ask that an
	// allow rule or an "always" answer overrides).
	SourceRequireApproval Source = "require_approval"
	// SourceMode: the permission mode (plan refuses, bypass allows,
	// accept-reads allows a read-only tool).
	SourceMode Source = "mode"
	// SourceHook: a PreToolUse hook's permissionDecision.
	SourceHook Source = "hook"
	// SourceUser: the user's answer to an ask.
	SourceUser Source = "user"
	// SourceUnattended: an ask with nobody to answer it (-p), refused or,
	// with --yes, allowed.
	SourceUnattended Source = "unattended"
)

// Decision is the answer for one call: what happens, why (the model reads
// Reason when the call is refused; the approval dialog shows it when it
// asks) and what decided it.
type Decision struct {
	Behavior Behavior `json:"behavior"`
	Reason   string   `json:"reason,omitempty"`
	Source   Source   `json:"source"`
	// Rule is the pattern that matched, when Source is SourceRule or
	// SourceRequireApproval; Scope is where that rule was written.
	Rule  string `json:"rule,omitempty"`
	Scope Scope  `json:"scope,omitempty"`
}

// Scope is where a rule is kept.
type Scope string

const (
	// ScopeConfig: the settings (user and trusted project config files).
	ScopeConfig Scope = "config"
	// ScopeSession: an "always" answer for this session, in memory.
	ScopeSession Scope = "session"
	// ScopeProject: an "always" answer saved to the project's
	// .agent/settings.local.json.
	ScopeProject Scope = "project"
	// ScopeUser: an "always" answer saved to the user config file.
	ScopeUser Scope = "user"
)

// Call is one tool call about to run.
type Call struct {
	// ID is the call's id (the model's tool_use id).
	ID string
	// Tool is the tool called (its names, server and annotations).
	Tool tools.Tool
	// Input is the call's arguments, checked against the tool's schema.
	Input json.RawMessage
}

// Func decides a call; the agent calls it before each tool runs. It must
// not block for long: an Ask is put to the user by the agent, not by Func.
type Func func(ctx context.Context, c Call) Decision

// Combine folds a PreToolUse hook's decision (hook; a zero Decision when no
// hook decided) into the decision of the rules and the mode (rules), as
// Claude Code does: a hook's deny refuses; its ask makes the user confirm
// even what the rules allow; its allow skips the prompt the rules would
// show, but never overrides a deny (a rule or the mode's) nor an explicit
// ask rule.
func Combine(hook, rules Decision) Decision {
	switch {
	case hook.Behavior == "" || rules.Behavior == Deny:
		return rules
	case hook.Behavior == Deny:
		return hook
	case rules.Behavior == Ask && rules.Source == SourceRule:
		return rules
	case hook.Behavior == Ask, hook.Behavior == Allow && rules.Behavior == Ask:
		return hook
	}
	return rules
}
