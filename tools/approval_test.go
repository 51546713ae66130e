package tools

import (
	"reflect"
	"testing"
)

func TestApprovalNames(t *testing.T) {
	mail := Tool{Name: "bad_2-dcf9__delete_everything", Orig: "delete_everything", Server: "bad.2"}
	plain := Tool{Name: "files__read/file", Orig: "read/file", Server: "files"}
	builtin := Tool{Name: "bash"}
	if got := Names(mail); !reflect.DeepEqual(got, []string{"bad_2-dcf9__delete_everything", "delete_everything", "bad.2__delete_everything"}) {
		t.Fatalf("Names = %q", got)
	}
	for _, c := range []struct {
		pattern string
		tool    Tool
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
		{"files__read/*", plain, true},
		{"read/*", plain, true},
		{"server:*", builtin, false},
		{"ba*", builtin, true},
	} {
		a, err := NewApproval([]string{c.pattern})
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Needs(c.tool); got != c.want {
			t.Errorf("%q on %s: %v, want %v", c.pattern, c.tool.Name, got, c.want)
		}
	}
	if _, err := NewApproval([]string{"[unclosed"}); err == nil {
		t.Error("a bad pattern is accepted")
	}
	a, _ := NewApproval([]string{"bad.2__*", "server:bad.2", "server:gone", "typo__*"})
	if got := a.Unmatched([]Tool{mail}, []string{"bad.2"}); !reflect.DeepEqual(got, []string{"server:gone", "typo__*"}) {
		t.Errorf("Unmatched = %q", got)
	}
	var none *Approval
	if none.Needs(mail) || none.Unmatched(nil, nil) != nil {
		t.Error("nil policy")
	}
}
