package pricing

import (
	"encoding/json"
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

// Round leaves a printed cost without float noise in its last digits: the
// -p JSON said total_cost_usd 0.055569900000000005. A whole number of
// nano-dollars, which every token's cost is, comes through unchanged.
func TestRound(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		usd  float64
		want string
	}{
		{0.055569900000000005, "0.0555699"},
		{0.1 + 0.2, "0.3"},
		{0, "0"},
		{0.000000003, "3e-9"},
		{0.0000000004, "0"},
		{12.345678912, "12.345678912"},
	} {
		b, err := json.Marshal(Round(tt.usd))
		if err != nil || string(b) != tt.want {
			t.Errorf("Round(%v) encodes as %s (%v), want %s", tt.usd, b, err, tt.want)
		}
	}
	// A request's cost, whose float sum is 0.014963549999999999, is its
	// exact decimal.
	p, _ := Lookup("claude-sonnet-4-5")
	got := Round(p.Cost(Usage{Input: 1234, Output: 567, CacheRead: 8901, CacheWrite: 23}))
	if want := 0.01496355; got != want {
		t.Errorf("Round(cost) = %v, want %v", got, want)
	}
}
