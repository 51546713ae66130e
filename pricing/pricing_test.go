package pricing

import (
	"math"
	"slices"
	"testing"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model string
		in    float64
		ok    bool
	}{
		{"claude-sonnet-4-5-20250929", 3, true},
		{"claude-opus-4-5", 5, true},
		{"claude-opus-4-1-20250805", 15, true},
		{"gpt-4.1-mini", 0.4, true},
		{"gpt-4.1", 2, true},
		{"anthropic/claude-sonnet-4.5", 3, true},
		{"openai/gpt-4.1-mini", 0.4, true},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", 3, true},
		{"anthropic.claude-3-haiku-20240307-v1:0", 0.25, true},
		{"claude-sonnet-4-5@20250929", 3, true},
		{"qwen3", 0, false},
		{"my-deployment", 0, false},
	}
	for _, tt := range tests {
		p, ok := Lookup(tt.model)
		if ok != tt.ok || p.Input != tt.in {
			t.Errorf("Lookup(%s) = %+v, %v; want input %v, %v", tt.model, p, ok, tt.in, tt.ok)
		}
	}
}

func TestCost(t *testing.T) {
	t.Parallel()
	p, _ := Lookup("claude-sonnet-4-5")
	got := p.Cost(Usage{Input: 1_000_000, Output: 100_000, CacheRead: 1_000_000, CacheWrite: 100_000})
	if want := 3 + 1.5 + 0.3 + 0.375; math.Abs(got-want) > 1e-9 {
		t.Errorf("cost = %v, want %v", got, want)
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	claude := Models("claude-")
	if len(claude) == 0 || !slices.IsSorted(claude) || slices.ContainsFunc(claude, func(m string) bool { return m[:7] != "claude-" }) {
		t.Errorf("Models(claude-) = %v", claude)
	}
	if got := Models("mistral-", "codestral"); !slices.Contains(got, "codestral") || !slices.Contains(got, "mistral-large") {
		t.Errorf("Models(mistral-, codestral) = %v", got)
	}
	if got := Models(); len(got) != 0 {
		t.Errorf("Models() = %v, want none", got)
	}
}
