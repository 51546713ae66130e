package app

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

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
			a := &App{session: agent.New(agent.Config{Provider: p, Model: model}), label: c.provider}
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

// A server that does not answer the listing leaves the table's models once
// the listing's time is up, not after the provider's long timeouts.
func TestPickerDoesNotWaitForASilentServer(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	p, model, err := NewProvider(Settings{}, "anthropic", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	a := &App{session: agent.New(agent.Config{Provider: p, Model: model}), label: "anthropic"}
	start := time.Now()
	got := choiceNames(a.listModels(t.Context(), 50*time.Millisecond))
	if !slices.Equal(got, choiceNames(a.Models())) {
		t.Errorf("picker = %v, want the table's models", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}

// agent models and /model offer no model its maker has retired: picked,
// it is refused at start ("was retired by its maker"); the current model
// is listed whatever it is.
func TestModelListLeavesRetiredOut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ provider, model string }{
		{"anthropic", ""}, {"deepseek", ""}, {"anthropic", "claude-3-5-haiku"},
	} {
		var s Settings
		s.Provider, s.Model = tc.provider, tc.model
		list, err := ModelList(s)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range list {
			if r := s.modelTable().Lookup(tc.provider, c.Name).Retired; r != "" && !(i == 0 && c.Name == tc.model) {
				t.Errorf("%s: %s is listed (%s), retired on %s", tc.provider, c.Name, c.Detail, r)
			}
		}
		if tc.model != "" && (len(list) == 0 || list[0].Name != tc.model) {
			t.Errorf("%s: the current model %s is not listed first: %v", tc.provider, tc.model, choiceNames(list))
		}
	}
}
