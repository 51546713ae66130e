package tokens

import (
	"encoding/json"
	"testing"
)

func TestSavedByDeferral(t *testing.T) {
	mk := func(name string) ToolDef {
		return ToolDef{Name: name, Description: "Does " + name + " to a repository.", Schema: json.RawMessage(`{"type":"object","properties":{"repo":{"type":"string"}}}`)}
	}
	active := []ToolDef{mk("read_file")}
	deferred := []ToolDef{mk("create_issue"), mk("list_issues"), mk("merge_pull_request")}
	each := map[string]int{}
	for _, d := range append(active, deferred...) {
		each[d.Name] = Tool(d.Name, d.Description, d.Schema)
		if got := Def(d); got != each[d.Name] {
			t.Fatalf("Def(%s) = %d, Tool = %d", d.Name, got, each[d.Name])
		}
	}
	eager := each["read_file"] + each["create_issue"] + each["list_issues"] + each["merge_pull_request"]
	for _, tc := range []struct {
		mode   string
		loaded []string
		want   Deferral
	}{
		{"off", nil, Deferral{Eager: eager, Context: eager}},
		{"off", []string{"create_issue"}, Deferral{Eager: eager, Context: eager}},
		{"native", nil, Deferral{eager, each["read_file"], eager - each["read_file"]}},
		{"client", []string{"list_issues", "not_a_tool"}, Deferral{eager, each["read_file"] + each["list_issues"], eager - each["read_file"] - each["list_issues"]}},
	} {
		if got := SavedByDeferral(active, deferred, tc.loaded, tc.mode); got != tc.want {
			t.Errorf("%s %v: got %+v, want %+v", tc.mode, tc.loaded, got, tc.want)
		}
	}
}
