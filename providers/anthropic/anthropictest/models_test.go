package anthropictest

import (
	"encoding/json"
	"net/http"
	"testing"
)

// GET /v1/models needs the same headers as /v1/messages and checks limit.
func TestListModelsRoute(t *testing.T) {
	s := NewServer(t)
	s.ListedModels = []string{"a", "b", "c"}
	get := func(key, version, query string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("GET", s.URL+"/v1/models"+query, nil)
		if key != "" {
			req.Header.Set("x-api-key", key)
		}
		if version != "" {
			req.Header.Set("anthropic-version", version)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	if st, _ := get("", "2023-06-01", ""); st != 401 {
		t.Errorf("no key: %d", st)
	}
	if st, _ := get("nope", "2023-06-01", ""); st != 401 {
		t.Errorf("wrong key: %d", st)
	}
	if st, _ := get(DefaultAPIKey, "", ""); st != 400 {
		t.Errorf("no version: %d", st)
	}
	if st, _ := get(DefaultAPIKey, "2023-06-01", "?limit=1001"); st != 400 {
		t.Errorf("limit 1001: %d", st)
	}
	st, body := get(DefaultAPIKey, "2023-06-01", "?limit=2")
	if st != 200 || body["has_more"] != true || body["first_id"] != "a" || body["last_id"] != "b" {
		t.Errorf("first page: %d %v", st, body)
	}
	st, body = get(DefaultAPIKey, "2023-06-01", "?limit=2&after_id=b")
	if data, _ := body["data"].([]any); st != 200 || body["has_more"] != false || len(data) != 1 || body["last_id"] != "c" {
		t.Errorf("second page: %d %v", st, body)
	}
}
