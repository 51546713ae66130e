package openairesponses

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
)

// maxModelList bounds the body read from GET /models.
const maxModelList = 4 << 20

// ListModels asks the server which models the key can use (GET
// {base}/models), for the TUI's model picker.
func (p *Provider) ListModels(ctx context.Context) ([]string, error) {
	h := http.Header{}
	if p.opts.APIKey != "" {
		h.Set("Authorization", "Bearer "+p.opts.APIKey)
	}
	resp, err := p.http.Get(ctx, p.opts.BaseURL+"/models", h)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		e, _ := apiError(resp)
		return nil, e
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxModelList)).Decode(&body); err != nil {
		return nil, fmt.Errorf("openai: list models: %w", err)
	}
	out := make([]string, 0, len(body.Data))
	for _, m := range body.Data {
		if m.ID != "" {
			out = append(out, m.ID)
		}
	}
	sort.Strings(out)
	return out, nil
}
