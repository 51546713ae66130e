package tools

import "testing"

func TestDestructiveAndReadOnlyApprovals(t *testing.T) {
	yes, no := true, false
	ro := Tool{Name: "s__read", Server: "s", Annotations: &Annotations{ReadOnly: &yes}}
	roButDestructive := Tool{Name: "s__odd", Server: "s", Annotations: &Annotations{ReadOnly: &yes, Destructive: &yes}}
	safeWrite := Tool{Name: "s__add", Server: "s", Annotations: &Annotations{Destructive: &no}}
	unannotated := Tool{Name: "s__rm", Server: "s"}
	builtin := Tool{Name: "read_resource"}
	for _, tt := range []struct {
		name     string
		patterns []string
		readOnly bool
		tool     Tool
		want     bool
	}{
		{"read-only is not destructive", []string{Destructive}, false, ro, false},
		{"destructiveHint wins", []string{Destructive}, false, roButDestructive, true},
		// The specification: destructiveHint matters only when readOnlyHint is false.
		{"a writing tool whose readOnlyHint is not true", []string{Destructive}, false, safeWrite, true},
		{"no annotations: may destroy", []string{Destructive}, false, unannotated, true},
		{"built-in tools are no server's", []string{Destructive}, false, builtin, false},
		{"approve_read_only overrides a name pattern", []string{"s__*"}, true, ro, false},
		{"approve_read_only leaves the others", []string{"s__*"}, true, unannotated, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := NewApproval(tt.patterns)
			if err != nil {
				t.Fatal(err)
			}
			a.ApproveReadOnly = tt.readOnly
			if got := a.Needs(tt.tool); got != tt.want {
				t.Errorf("Needs(%s) = %v, want %v", tt.tool.Name, got, tt.want)
			}
		})
	}
	if _, err := NewApproval([]string{"@readonly"}); err == nil {
		t.Error("an unknown @ pattern was accepted")
	}
	if u := (&Approval{patterns: []string{Destructive}}).Unmatched(nil, nil); len(u) != 0 {
		t.Errorf("@destructive reported as unmatched: %v", u)
	}
}
