package anthropictest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
)

// DefaultListedModels is what GET /v1/models lists unless
// Server.ListedModels is set (newest first, as the API lists).
var DefaultListedModels = []string{"claude-opus-4-6", "claude-sonnet-4-5", "claude-haiku-4-5"}

type modelInfo struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
	CreatedAt   string `json:"created_at"`
}

// listModels answers GET /v1/models as the API does: limit 1 to 1000
// (default 20), after_id/before_id cursors, first_id/last_id/has_more.
func (s *Server) listModels(w http.ResponseWriter, hr *http.Request, req *Request, reject func(int, string, string)) {
	s.mu.Lock()
	all, pageCap := s.ListedModels, s.ModelPage
	s.mu.Unlock()
	if all == nil {
		all = DefaultListedModels
	}
	q := hr.URL.Query()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			reject(400, "invalid_request_error", "limit: Input should be greater than or equal to 1 and less than or equal to 1000")
			return
		}
		limit = n
	}
	if pageCap > 0 && limit > pageCap {
		limit = pageCap
	}
	if q.Get("after_id") != "" && q.Get("before_id") != "" {
		reject(400, "invalid_request_error", "after_id and before_id cannot both be set")
		return
	}
	start, end := 0, len(all)
	if a := q.Get("after_id"); a != "" {
		start = slices.Index(all, a) + 1
		if start == 0 {
			start = len(all)
		}
	}
	if b := q.Get("before_id"); b != "" {
		if end = slices.Index(all, b); end < 0 {
			end = 0
		}
		start = max(0, end-limit)
	}
	stop := min(end, start+limit)
	page := all[start:stop]
	data := make([]modelInfo, 0, len(page))
	for _, id := range page {
		data = append(data, modelInfo{Type: "model", ID: id, DisplayName: id, CreatedAt: "2025-01-01T00:00:00Z"})
	}
	body := map[string]any{"data": data, "has_more": stop < end, "first_id": nil, "last_id": nil}
	if q.Get("before_id") != "" {
		body["has_more"] = start > 0
	}
	if len(page) > 0 {
		body["first_id"], body["last_id"] = page[0], page[len(page)-1]
	}
	req.Status = 200
	w.Header().Set("content-type", "application/json")
	w.Header().Set("request-id", "req_fake_ok")
	_ = json.NewEncoder(w).Encode(body)
}
