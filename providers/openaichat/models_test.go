package openaichat

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

func TestListModels(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, `{"error":{"message":"no"}}`, http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"qwen3:8b"},{"id":"llama3.2"}]}`))
	}))
	defer srv.Close()
	p := New(Options{Name: "ollama", APIKey: "k", BaseURL: srv.URL + "/v1"})
	got, err := p.ListModels(t.Context())
	if err != nil || !slices.Equal(got, []string{"llama3.2", "qwen3:8b"}) {
		t.Fatalf("ListModels = %v, %v", got, err)
	}
	if _, err := New(Options{Name: "ollama", BaseURL: srv.URL + "/v1"}).ListModels(t.Context()); err == nil {
		t.Fatal("a 401 is not an error")
	}
}
