package pricing

import (
	"math"
	"testing"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		provider, model string
		in              float64
		ok              bool
	}{
		{"anthropic", "claude-sonnet-4-5-20250929", 3, true},
		{"anthropic", "claude-opus-4-5", 5, true},
		{"anthropic", "claude-opus-4-1-20250805", 15, true},
		{"openai", "gpt-4.1-mini", 0.4, true},
		{"openai", "gpt-4.1", 2, true},
		{"openrouter", "anthropic/claude-sonnet-4.5", 3, true},
		{"openrouter", "openai/gpt-4.1-mini", 0.4, true},
		{"ollama", "qwen3", 0, true},
		{"openai-chat", "my-deployment", 0, false},
	}
	for _, tt := range tests {
		p, ok := Lookup(tt.provider, tt.model)
		if ok != tt.ok || p.Input != tt.in {
			t.Errorf("Lookup(%s, %s) = %+v, %v; want input %v, %v", tt.provider, tt.model, p, ok, tt.in, tt.ok)
		}
	}
}

func TestCost(t *testing.T) {
	t.Parallel()
	p, _ := Lookup("anthropic", "claude-sonnet-4-5")
	got := p.Cost(Usage{Input: 1_000_000, Output: 100_000, CacheRead: 1_000_000, CacheWrite: 100_000})
	if want := 3 + 1.5 + 0.3 + 0.375; math.Abs(got-want) > 1e-9 {
		t.Errorf("cost = %v, want %v", got, want)
	}
	if len(Models("anthropic")) == 0 || len(Models("ollama")) != 0 {
		t.Error("Models lists the wrong families")
	}
}
