package app

import (
	"slices"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

func choiceNames(cs []ModelChoice) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// #18: /model's picker offers the table's models and what the Anthropic and
// OpenAI Responses servers list (GET /v1/models, GET /models); a refused
// listing leaves the table's models.
func TestPickerListsServedModels(t *testing.T) {
	t.Parallel()
	ant := anthropictest.NewServer(t)
	ant.ListedModels, ant.ModelPage = []string{"claude-fake-9-listed", "claude-sonnet-4-5"}, 1
	oai := responsestest.NewServer(t)
	oai.ListedModels = []string{"gpt-fake-9-listed", "gpt-5.4"}
	cases := []struct {
		provider, prefix, base, key, listed string
	}{
		{"anthropic", "ANTHROPIC", ant.URL, anthropictest.DefaultAPIKey, "claude-fake-9-listed"},
		{"openai", "OPENAI", oai.URL, responsestest.DefaultKey, "gpt-fake-9-listed"},
	}
	for _, c := range cases {
		for _, key := range []string{c.key, "wrong-key"} {
			env := map[string]string{c.prefix + "_API_KEY": key, c.prefix + "_BASE_URL": c.base}
			p, model, err := NewProvider(Settings{}, c.provider, func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			a := &App{session: &agent.Session{Provider: p, Model: model}, label: c.provider}
			table := choiceNames(a.Models())
			if slices.Contains(table, c.listed) {
				t.Fatalf("%s: %s is in the table already", c.provider, c.listed)
			}
			got := choiceNames(a.ListModels(t.Context()))
			if key == c.key && (!slices.Contains(got, c.listed) || len(got) != len(table)+1) {
				t.Errorf("%s: picker = %v, want the table %v and %s", c.provider, got, table, c.listed)
			}
			if key != c.key && !slices.Equal(got, table) {
				t.Errorf("%s with a refused listing: picker = %v, want the table %v", c.provider, got, table)
			}
		}
	}
}
