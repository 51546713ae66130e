package permission

import (
	"reflect"
	"testing"

	"github.com/agent-dev/agent/tools"
)

var (
	yes, no  = true, false
	mail     = tools.Tool{Name: "bad_2-dcf9__delete_everything", Orig: "delete_everything", Server: "bad.2"}
	slashed  = tools.Tool{Name: "files__read/file", Orig: "read/file", Server: "files"}
	builtin  = tools.Tool{Name: "bash"}
	ro       = tools.Tool{Name: "s__read", Orig: "read", Server: "s", Annotations: &tools.Annotations{ReadOnly: &yes}}
	roButRm  = tools.Tool{Name: "s__odd", Orig: "odd", Server: "s", Annotations: &tools.Annotations{ReadOnly: &yes, Destructive: &yes}}
	safeAdd  = tools.Tool{Name: "s__add", Orig: "add", Server: "s", Annotations: &tools.Annotations{Destructive: &no}}
	rm       = tools.Tool{Name: "s__rm", Orig: "rm", Server: "s"}
	resource = tools.Tool{Name: "read_resource", Annotations: &tools.Annotations{ReadOnly: &yes}}
)

func TestMatch(t *testing.T) {
	if got := tools.Names(mail); !reflect.DeepEqual(got, []string{"bad_2-dcf9__delete_everything", "delete_everything", "bad.2__delete_everything"}) {
		t.Fatalf("Names = %q", got)
	}
	for _, c := range []struct {
		pattern string
		tool    tools.Tool
		want    bool
	}{
		{"bad.2__*", mail, true},
		{"bad.2__delete_everything", mail, true},
		{"delete_*", mail, true},
		{"bad_2-dcf9__delete_everything", mail, true},
		{"*__delete_*", mail, true},
		{"server:bad.2", mail, true},
		{"server:bad*", mail, true},
		{"server:bad", mail, false},
		{"bad__*", mail, false},
		{"mcp__bad.2__delete_everything", mail, true},
		{"mcp__bad.2", mail, true},
		{"mcp__bad.2__*", mail, true},
		{"mcp__bad", mail, false},
		{"files__read/*", slashed, true},
		{"read/*", slashed, true},
		{"server:*", builtin, false},
		{"ba*", builtin, true},
		{ToolPattern(mail), mail, true},
		{ServerPattern("bad.2"), mail, true},
		{ServerPattern("b*"), mail, false},
		// Annotations: the specification's destructiveHint matters only
		// when readOnlyHint is not true; a destructiveHint false does not
		// take a writing tool out.
		{Destructive, ro, false},
		{Destructive, roButRm, false},
		{Destructive, safeAdd, true},
		{Destructive, rm, true},
		{Destructive, resource, false},
		{ReadOnly, ro, true},
		{ReadOnly, resource, true},
		{ReadOnly, rm, false},
		{ReadOnly, safeAdd, false},
	} {
		if err := Check("test", c.pattern); err != nil {
			t.Fatal(err)
		}
		if got := Match(c.pattern, c.tool); got != c.want {
			t.Errorf("%q on %s: %v, want %v", c.pattern, c.tool.Name, got, c.want)
		}
	}
	for _, bad := range []string{"[unclosed", "@readonly", "", "server:"} {
		if err := Check("permissions.deny", bad); err == nil {
			t.Errorf("%q is accepted", bad)
		}
	}
	got := Unmatched([]string{"bad.2__*", "server:bad.2", "server:gone", "typo__*", Destructive, "mcp__bad.2"}, []tools.Tool{mail}, []string{"bad.2"})
	if !reflect.DeepEqual(got, []string{"server:gone", "typo__*"}) {
		t.Errorf("Unmatched = %q", got)
	}
}

func rules(allow, ask, deny []string) Rules {
	var r Rules
	for b, l := range map[Behavior][]string{Allow: allow, Ask: ask, Deny: deny} {
		for _, p := range l {
			r.Add(b, p, ScopeConfig)
		}
	}
	return r
}

func TestDecide(t *testing.T) {
	for _, c := range []struct {
		name   string
		policy Policy
		mode   Mode
		tool   tools.Tool
		want   Behavior
		source Source
	}{
		{"nothing matches: runs", Policy{}, ModeDefault, rm, Allow, SourceDefault},
		{"deny beats allow", Policy{Rules: rules([]string{"server:s"}, nil, []string{"s__rm"})}, ModeDefault, rm, Deny, SourceRule},
		{"deny beats ask", Policy{Rules: rules(nil, []string{"*"}, []string{"rm"})}, ModeDefault, rm, Deny, SourceRule},
		{"ask beats allow", Policy{Rules: rules([]string{"server:s"}, []string{"@destructive"}, nil)}, ModeDefault, rm, Ask, SourceRule},
		{"allow beats require_approval", Policy{Rules: rules([]string{"server:s"}, nil, nil), RequireApproval: []string{"server:s"}}, ModeDefault, rm, Allow, SourceRule},
		{"require_approval asks", Policy{RequireApproval: []string{"@destructive"}}, ModeDefault, rm, Ask, SourceRequireApproval},
		{"require_approval: a read-only tool is not destructive", Policy{RequireApproval: []string{"@destructive"}}, ModeDefault, ro, Allow, SourceDefault},
		{"approve_read_only overrides require_approval", Policy{RequireApproval: []string{"s__*"}, ApproveReadOnly: true}, ModeDefault, ro, Allow, SourceMode},
		{"approve_read_only leaves the others", Policy{RequireApproval: []string{"s__*"}, ApproveReadOnly: true}, ModeDefault, rm, Ask, SourceRequireApproval},
		{"accept-reads: read-only runs", Policy{RequireApproval: []string{"s__*"}}, ModeAcceptReads, ro, Allow, SourceMode},
		{"accept-reads: others still ask", Policy{RequireApproval: []string{"s__*"}}, ModeAcceptReads, rm, Ask, SourceRequireApproval},
		{"accept-reads: an explicit ask rule still asks", Policy{Rules: rules(nil, []string{"s__read"}, nil)}, ModeAcceptReads, ro, Ask, SourceRule},
		{"plan refuses a destructive tool", Policy{}, ModePlan, rm, Deny, SourceMode},
		{"plan refuses even an allowed one", Policy{Rules: rules([]string{"*"}, nil, nil)}, ModePlan, safeAdd, Deny, SourceMode},
		{"plan runs a read-only tool", Policy{RequireApproval: []string{"*"}}, ModePlan, ro, Allow, SourceMode},
		{"plan runs read_resource", Policy{}, ModePlan, resource, Allow, SourceDefault},
		{"plan: deny still first", Policy{Rules: rules(nil, nil, []string{"@read-only"})}, ModePlan, ro, Deny, SourceRule},
		{"bypass asks nothing", Policy{Rules: rules(nil, []string{"*"}, nil), RequireApproval: []string{"*"}}, ModeBypass, rm, Allow, SourceMode},
		{"bypass: deny still holds", Policy{Rules: rules(nil, nil, []string{"server:s"})}, ModeBypass, rm, Deny, SourceRule},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := c.policy.Decide(c.tool, c.mode)
			if d.Behavior != c.want || d.Source != c.source {
				t.Fatalf("Decide = %+v, want %s from %s", d, c.want, c.source)
			}
			if d.Behavior == Deny && d.Reason == "" {
				t.Error("a refusal without a reason for the model")
			}
		})
	}
	if d := (*Policy)(nil).Decide(rm, ModePlan); d.Behavior != Deny || d.Reason != PlanRefusal(rm.Name) {
		t.Errorf("nil policy in plan mode: %+v", d)
	}
}

func TestCombine(t *testing.T) {
	hook := func(b Behavior) Decision {
		return Decision{Behavior: b, Source: SourceHook, Reason: "hook says " + string(b)}
	}
	ruleAsk := Decision{Behavior: Ask, Source: SourceRule, Rule: "x"}
	approval := Decision{Behavior: Ask, Source: SourceRequireApproval, Rule: "x"}
	ruleDeny := Decision{Behavior: Deny, Source: SourceRule, Rule: "x"}
	planDeny := Decision{Behavior: Deny, Source: SourceMode}
	runs := Decision{Behavior: Allow, Source: SourceDefault}
	for _, c := range []struct {
		name        string
		hook, rules Decision
		want        Decision
	}{
		{"no hook", Decision{}, approval, approval},
		{"hook deny refuses what runs", hook(Deny), runs, hook(Deny)},
		{"hook allow skips require_approval's prompt", hook(Allow), approval, hook(Allow)},
		{"hook allow never overrides a deny rule", hook(Allow), ruleDeny, ruleDeny},
		{"hook allow never overrides plan mode", hook(Allow), planDeny, planDeny},
		{"hook allow leaves an explicit ask rule", hook(Allow), ruleAsk, ruleAsk},
		{"hook ask makes the user confirm", hook(Ask), runs, hook(Ask)},
		{"hook deny over an ask", hook(Deny), ruleAsk, hook(Deny)},
		{"hook allow over a run", hook(Allow), runs, runs},
	} {
		if got := Combine(c.hook, c.rules); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestModes(t *testing.T) {
	for _, s := range []string{"default", "accept-reads", "plan", "bypass"} {
		if m, err := ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	if m, err := ParseMode(""); err != nil || m != ModeDefault {
		t.Errorf("ParseMode(\"\") = %q, %v", m, err)
	}
	if _, err := ParseMode("acceptEdits"); err == nil {
		t.Error("an unknown mode is accepted")
	}
	var cycle []Mode
	for m, i := ModeDefault, 0; i < 4; i++ {
		m = m.Next(false)
		cycle = append(cycle, m)
	}
	if !reflect.DeepEqual(cycle, []Mode{ModeAcceptReads, ModePlan, ModeDefault, ModeAcceptReads}) {
		t.Errorf("cycle without bypass = %v", cycle)
	}
	if ModePlan.Next(true) != ModeBypass || ModeBypass.Next(true) != ModeDefault {
		t.Error("bypass is not in the cycle of a run started in it")
	}
}
