package mcp

import "testing"

// Notices count tools in words that agree: "(1 tool leaves", not "(1 tools leave".
func TestToolCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 tools leave"}, {1, "1 tool leaves"}, {2, "2 tools leave"}} {
		if got := toolCount(tc.n) + " " + agrees(tc.n, "leaves", "leave"); got != tc.want {
			t.Errorf("%d: %q, want %q", tc.n, got, tc.want)
		}
	}
}
