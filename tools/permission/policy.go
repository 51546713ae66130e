package permission

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// Mode is the permission mode: the baseline for calls no deny rule
// refuses.
type Mode string

const (
	// ModeDefault: asks what an ask rule or require_approval names.
	ModeDefault Mode = "default"
	// ModeAcceptReads: read-only tools run without asking (an explicit ask
	// rule still asks).
	ModeAcceptReads Mode = "accept-reads"
	// ModePlan: only read-only tools run; the others are refused, and the
	// model is told so, until the user leaves plan mode.
	ModePlan Mode = "plan"
	// ModeBypass: nothing is asked; deny rules still hold.
	ModeBypass Mode = "bypass"
)

// Modes lists the modes in the order shift+tab cycles them.
var Modes = []Mode{ModeDefault, ModeAcceptReads, ModePlan, ModeBypass}

// ParseMode reads a mode's name; "" is the default mode.
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return ModeDefault, nil
	}
	if m := Mode(s); slices.Contains(Modes, m) {
		return m, nil
	}
	return "", fmt.Errorf("unknown permission mode %q: use default, accept-reads, plan or bypass", s)
}

// Next is the mode after m in the shift+tab cycle; bypass is in the cycle
// only when withBypass (the run started in it), as in Claude Code.
func (m Mode) Next(withBypass bool) Mode {
	i := max(slices.Index(Modes, m), 0) // "" is the default mode
	for {
		i = (i + 1) % len(Modes)
		if Modes[i] != ModeBypass || withBypass {
			return Modes[i]
		}
	}
}

// Rule is one pattern and where it was written.
type Rule struct {
	Pattern string
	Scope   Scope
}

// Rules are the allow, ask and deny lists.
type Rules struct {
	Allow, Ask, Deny []Rule
}

// Policy is everything the rules decide from, but the mode (which the user
// changes mid-session, so Decide takes it).
type Policy struct {
	Rules Rules
	// RequireApproval are the require_approval patterns: asks that an
	// allow rule (an "always" answer, say) overrides, unlike Rules.Ask.
	RequireApproval []string
	// ApproveReadOnly (approve_read_only) lets a read-only tool run
	// without asking in every mode, whatever require_approval says.
	ApproveReadOnly bool
}

// Decide is the decision for a call of t in mode: deny rules refuse, then
// plan mode refuses what is not read-only, bypass allows, an ask rule
// asks, an allow rule allows, require_approval asks; else the call runs.
// accept-reads, plan and approve_read_only let a read-only tool skip
// require_approval's ask (never an explicit ask rule's).
func (p *Policy) Decide(t tools.Tool, mode Mode) Decision {
	if p == nil {
		p = &Policy{}
	}
	if r, ok := first(p.Rules.Deny, t); ok {
		return Decision{Behavior: Deny, Source: SourceRule, Rule: r.Pattern, Scope: r.Scope,
			Reason: fmt.Sprintf("%s is denied by the permissions rule %q: do not call it again; tell the user if the task needs it", t.Name, r.Pattern)}
	}
	readOnly := t.Annotations.IsReadOnly()
	switch mode {
	case ModePlan:
		if !readOnly {
			return Decision{Behavior: Deny, Source: SourceMode,
				Reason: PlanRefusal(t.Name)}
		}
	case ModeBypass:
		return Decision{Behavior: Allow, Source: SourceMode, Reason: "bypass mode"}
	}
	if r, ok := first(p.Rules.Ask, t); ok {
		return Decision{Behavior: Ask, Source: SourceRule, Rule: r.Pattern, Scope: r.Scope,
			Reason: fmt.Sprintf("the permissions rule %q asks for %s", r.Pattern, t.Name)}
	}
	if r, ok := first(p.Rules.Allow, t); ok {
		return Decision{Behavior: Allow, Source: SourceRule, Rule: r.Pattern, Scope: r.Scope}
	}
	for _, pat := range p.RequireApproval {
		if !Match(pat, t) {
			continue
		}
		if readOnly && (mode != ModeDefault || p.ApproveReadOnly) {
			return Decision{Behavior: Allow, Source: SourceMode, Reason: "read-only"}
		}
		return Decision{Behavior: Ask, Source: SourceRequireApproval, Rule: pat, Scope: ScopeConfig,
			Reason: fmt.Sprintf("require_approval %q names %s", pat, t.Name)}
	}
	return Decision{Behavior: Allow, Source: SourceDefault}
}

// PlanRefusal is what the model reads when plan mode refuses a call.
func PlanRefusal(name string) string {
	return fmt.Sprintf("%s was not run: the session is in plan mode, where only read-only tools run and every other tool is refused until the user leaves plan mode. Do not retry it; use read-only tools to investigate and describe the changes you would make as a plan for the user.", name)
}

// PlanNote is what the system context says while the session is in plan
// mode.
const PlanNote = "The session is in plan mode: only read-only tools run; every other tool call is refused until the user leaves plan mode. Investigate with read-only tools and answer with a plan of the changes you would make; do not try to make them."

func first(rules []Rule, t tools.Tool) (Rule, bool) {
	for _, r := range rules {
		if Match(r.Pattern, t) {
			return r, true
		}
	}
	return Rule{}, false
}

// Add appends pattern to the list of behavior with scope, unless it is
// there already; it reports whether it added it.
func (r *Rules) Add(b Behavior, pattern string, scope Scope) bool {
	list := r.list(b)
	if slices.ContainsFunc(*list, func(x Rule) bool { return x.Pattern == pattern }) {
		return false
	}
	*list = append(*list, Rule{Pattern: pattern, Scope: scope})
	return true
}

func (r *Rules) list(b Behavior) *[]Rule {
	switch b {
	case Deny:
		return &r.Deny
	case Ask:
		return &r.Ask
	}
	return &r.Allow
}

// Restrictive lists the deny and ask patterns, for Unmatched: a misspelt
// one lets calls run it was meant to stop (a misspelt allow only asks).
func (r Rules) Restrictive() []string {
	var out []string
	for _, l := range [][]Rule{r.Deny, r.Ask} {
		for _, x := range l {
			out = append(out, x.Pattern)
		}
	}
	return out
}

// String is a decision in a few words for the approval dialog and logs:
// "ask: require_approval \"server:github\"".
func (d Decision) String() string {
	var b strings.Builder
	b.WriteString(string(d.Behavior))
	switch d.Source {
	case SourceRule, SourceRequireApproval:
		fmt.Fprintf(&b, ": %s %q", d.Source, d.Rule)
		if d.Scope != "" && d.Scope != ScopeConfig {
			fmt.Fprintf(&b, " (%s)", d.Scope)
		}
	case "":
	default:
		fmt.Fprintf(&b, ": %s", d.Source)
	}
	return b.String()
}

// Func is the policy as the agent's Permit: mode is read at each call (the
// user may change it mid-turn); nil is the default mode.
func (p *Policy) Func(mode func() Mode) Func {
	return func(_ context.Context, c Call) Decision {
		m := ModeDefault
		if mode != nil {
			m = mode()
		}
		return p.Decide(c.Tool, m)
	}
}
