package searchargs

import (
	"reflect"
	"testing"

	"github.com/agent-dev/agent/agent"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		want       agent.SearchCall
	}{
		{"query", `{"query":"  send an email "}`, agent.SearchCall{Query: "send an email"}},
		{"query and limit", `{"query":"weather","limit":3}`, agent.SearchCall{Query: "weather", Limit: 3}},
		{"limit as a string", `{"query":"weather","limit":"7"}`, agent.SearchCall{Query: "weather", Limit: 7}},
		{"limit not a number", `{"query":"weather","limit":"many"}`, agent.SearchCall{Query: "weather"}},
		{"limit zero or below", `{"query":"weather","limit":-2}`, agent.SearchCall{Query: "weather"}},
		{"select", `{"query":"select:read_file, write_file,,"}`, agent.SearchCall{Names: []string{"read_file", "write_file"}}},
		{"select in capitals", `{"query":"SELECT:read_file"}`, agent.SearchCall{Names: []string{"read_file"}}},
		{"regular expression", `{"query":"/^git_.*/"}`, agent.SearchCall{Pattern: "^git_.*"}},
		{"a lone slash is a query", `{"query":"/"}`, agent.SearchCall{Query: "/"}},
		{"not an object", `weather in Paris`, agent.SearchCall{Query: "weather in Paris"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.ID, tc.want.Where = "c1", agent.WhereClient
			if got := Parse("c1", []byte(tc.args)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse(%s) = %+v, want %+v", tc.args, got, tc.want)
			}
		})
	}
}
