package tui

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/pricing"
)

// /cost prints each model's prices as a person writes them: a cache read
// of claude-sonnet-4-5 (0.1 × $3, computed) said "$0.30000000000000004".
func TestCostPricesRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ model, want string }{
		{"claude-sonnet-4-5", "$3 in · $15 out · $0.3 cache read · $3.75 cache write per million tokens"},
		{"gpt-4.1-nano", "$0.1 in · $0.4 out · $0.025 cache read · $0.1 cache write"},
		{"deepseek-chat", "$0.28 in · $0.42 out · $0.028 cache read"},
	} {
		p, ok := pricing.Lookup(tc.model)
		if !ok {
			t.Fatalf("%s has no price", tc.model)
		}
		b := newFakeBackend()
		b.info.Model, b.info.Price = tc.model, p
		m, _, _ := newTestModel(t, b, 220, 40, Options{})
		typeText(m, "/cost")
		press(m, "enter")
		if f := frame(m); !strings.Contains(f, tc.want) {
			t.Errorf("%s: /cost lacks %q:\n%s", tc.model, tc.want, f)
		}
	}
}
