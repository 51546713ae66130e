package app

import (
	"errors"
	"testing"

	"github.com/agent-dev/agent/providers/registry"
)

// A failed run's -p JSON names the model the run would have used, as a
// turn's result does: the provider's default when no --model was given,
// not "".
func TestFailedResultNamesTheModel(t *testing.T) {
	d, ok := registry.Lookup("anthropic")
	if !ok || d.DefaultModel == "" {
		t.Fatal("anthropic has no default model")
	}
	for _, c := range []struct{ model, want string }{
		{"", d.DefaultModel},
		{"claude-x", "claude-x"},
	} {
		var s Settings
		s.Provider, s.Model = "anthropic", c.model
		if got := FailedResult(s, errors.New("boom")).Model; got != c.want {
			t.Errorf("model %q: result says %q, want %q", c.model, got, c.want)
		}
	}
}
