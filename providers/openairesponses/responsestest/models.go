package responsestest

import (
	"encoding/json"
	"net/http"
)

// DefaultListedModels is what GET /models lists unless Server.ListedModels
// is set.
var DefaultListedModels = []string{"gpt-5.4", "gpt-5.4-mini", "gpt-4o"}

// listModels answers GET /models as the API does: the whole list at once,
// {"object":"list","data":[{"id","object":"model","created","owned_by"}]}.
func (s *Server) listModels(w http.ResponseWriter) {
	s.mu.Lock()
	ids := s.ListedModels
	s.mu.Unlock()
	if ids == nil {
		ids = DefaultListedModels
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	data := make([]model, 0, len(ids))
	for _, id := range ids {
		data = append(data, model{ID: id, Object: "model", Created: 1735689600, OwnedBy: "system"})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-request-id", "req_fake")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}
