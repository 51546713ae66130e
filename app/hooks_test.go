package app

import (
	"testing"

	"github.com/agent-dev/agent/tools"
)

// Hooks see an MCP tool as SERVER__TOOL with the configured server name,
// whatever its wire name became.
func TestHookToolName(t *testing.T) {
	for _, c := range []struct {
		tool tools.Tool
		want string
	}{
		{tools.Tool{Name: "tt__get_weather", Server: "tt", Orig: "get_weather"}, "tt__get_weather"},
		{tools.Tool{Name: "github__create_issue_x1", Server: "github", Orig: "create.issue"}, "github__create.issue"},
		{tools.Tool{Name: "read_resource"}, "read_resource"},
	} {
		if got := toolName(c.tool); got != c.want {
			t.Errorf("toolName(%+v) = %q, want %q", c.tool, got, c.want)
		}
	}
}
