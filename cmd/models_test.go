package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// agent models without an id lists the provider's models from the tables,
// the current one first; with an id (or --model) it shows that one; a
// provider the tables know nothing of says what to do, on one line.
func TestModelsWithoutIDLists(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // in stdout, or stderr when code != 0
	}{
		{"anthropic", []string{"models", "--provider", "anthropic"}, 0,
			[]string{"current · 200k context", "claude-opus-4-5", "models of anthropic in the tables; agent models MODEL shows"}},
		{"ollama default", []string{"models", "--provider", "ollama"}, 0, []string{"qwen3  current", "1 model of ollama in the tables"}},
		{"--model shows one", []string{"models", "--provider", "anthropic", "--model", "claude-opus-4-1"}, 0, []string{"claude-opus-4-1 (anthropic): known", "tool search"}},
		{"nothing known", []string{"models", "--provider", "vllm"}, 2, []string{"the tables know no model of vllm", "agent models MODEL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runAgent(t, nil, tc.args...)
			out := res.stdout
			if tc.code != 0 {
				out = res.stderr
				if strings.Count(strings.TrimSpace(out), "\n") != 0 {
					t.Errorf("error on more than one line: %q", out)
				}
			}
			if res.code != tc.code {
				t.Fatalf("exit %d, want %d: %s%s", res.code, tc.code, res.stdout, res.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	// --json gives the capability rows of the same list.
	res := runAgent(t, nil, "models", "--provider", "anthropic", "--json")
	var rows []struct {
		Model string `json:"model"`
		Known bool   `json:"known"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &rows); err != nil || len(rows) < 2 || rows[0].Model == "" || !rows[0].Known {
		t.Errorf("exit %d, %v: %s", res.code, err, res.stdout)
	}
}
