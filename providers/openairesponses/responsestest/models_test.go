package responsestest

import (
	"encoding/json"
	"net/http"
	"testing"
)

// GET /models needs the bearer key as /responses does.
func TestListModelsRoute(t *testing.T) {
	s := NewServer(t)
	get := func(auth string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("GET", s.URL+"/models", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
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
	if st, _ := get(""); st != 401 {
		t.Errorf("no key: %d", st)
	}
	if st, _ := get("Bearer nope"); st != 401 {
		t.Errorf("wrong key: %d", st)
	}
	st, body := get("Bearer " + DefaultKey)
	if data, _ := body["data"].([]any); st != 200 || body["object"] != "list" || len(data) != len(DefaultListedModels) {
		t.Errorf("list: %d %v", st, body)
	}
}
