package openairesponses_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openairesponses"
	"github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

// ListModels reads GET {base}/models with the bearer key.
func TestListModels(t *testing.T) {
	t.Parallel()
	srv := responsestest.NewServer(t)
	srv.ListedModels = []string{"gpt-9-preview", "gpt-5.4", "o9"}
	p := openairesponses.New(openairesponses.Options{APIKey: responsestest.DefaultKey, BaseURL: srv.URL})
	got, err := p.ListModels(t.Context())
	if want := []string{"gpt-5.4", "gpt-9-preview", "o9"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("ListModels = %v, %v; want %v", got, err, want)
	}
	if r := srv.Requests(); len(r) != 1 || r[0].Status != 200 {
		t.Fatalf("requests = %+v", r)
	}
	bad := openairesponses.New(openairesponses.Options{APIKey: "wrong", BaseURL: srv.URL})
	var ae *agent.APIError
	if _, err := bad.ListModels(t.Context()); !errors.As(err, &ae) || ae.Status != 401 {
		t.Fatalf("wrong key: err = %v, want the API's 401", err)
	}
}
