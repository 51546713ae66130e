package azure_test

import (
	"testing"

	"github.com/agent-dev/agent/providers/azure"
)

// Azure's GET /models lists base models, while --model takes a deployment
// name: the picker must not offer them, so the listing is refused without
// a request.
func TestNoModelListing(t *testing.T) {
	t.Parallel()
	p, err := azure.New(azure.Options{Endpoint: "http://127.0.0.1:1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.ListModels(t.Context()); err == nil || got != nil {
		t.Fatalf("ListModels = %v, %v; want a refusal", got, err)
	}
}
