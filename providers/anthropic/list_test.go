package anthropic_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// ListModels follows the API's pages (has_more, last_id → after_id) with
// the key and version headers, and keeps the API's newest-first order.
func TestListModelsPages(t *testing.T) {
	t.Parallel()
	srv := anthropictest.NewServer(t)
	listed := []string{"claude-opus-9", "claude-sonnet-9", "claude-opus-4-6", "claude-sonnet-4-5", "claude-haiku-4-5"}
	srv.ListedModels, srv.ModelPage = listed, 2
	p := anthropic.New(anthropic.Options{APIKey: anthropictest.DefaultAPIKey, BaseURL: srv.URL})
	got, err := p.ListModels(t.Context())
	if err != nil || !slices.Equal(got, listed) {
		t.Fatalf("ListModels = %v, %v; want %v", got, err, listed)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 pages", len(reqs))
	}
	for _, r := range reqs {
		if r.Status != 200 || r.Header.Get("x-api-key") != anthropictest.DefaultAPIKey || r.Header.Get("anthropic-version") == "" {
			t.Fatalf("request %s: status %d, headers %v", r.Path, r.Status, r.Header)
		}
	}
}

// A refused listing is the API's error, so the picker can drop it quietly.
func TestListModelsRefused(t *testing.T) {
	t.Parallel()
	srv := anthropictest.NewServer(t)
	p := anthropic.New(anthropic.Options{APIKey: "wrong", BaseURL: srv.URL + "/v1"})
	_, err := p.ListModels(t.Context())
	var ae *agent.APIError
	if !errors.As(err, &ae) || ae.Status != 401 {
		t.Fatalf("err = %v, want the API's 401", err)
	}
	if !strings.Contains(err.Error(), "x-api-key") {
		t.Fatalf("err = %v, want the API's message", err)
	}
}
