package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// Listing bounds: the page size (the API's maximum), the pages followed and
// the body read per page.
const (
	modelPageLimit = 1000
	maxModelPages  = 10
	maxModelList   = 4 << 20
)

// ListModels asks the API which models the key can use (GET /v1/models,
// newest first, following has_more/last_id), for the TUI's model picker.
// A cloud platform (Vertex AI, Bedrock) has no such listing here.
func (p *Provider) ListModels(ctx context.Context) ([]string, error) {
	if p.opts.Platform != nil {
		return nil, errors.New("anthropic: no model listing on a cloud platform")
	}
	h := http.Header{}
	h.Set("anthropic-version", p.opts.Version)
	if p.opts.APIKey != "" {
		h.Set("x-api-key", p.opts.APIKey)
	}
	var out []string
	after := ""
	for range maxModelPages {
		q := url.Values{"limit": {fmt.Sprint(modelPageLimit)}}
		if after != "" {
			q.Set("after_id", after)
		}
		page, err := p.modelPage(ctx, p.opts.BaseURL+"/v1/models?"+q.Encode(), h)
		if err != nil {
			return nil, err
		}
		for _, m := range page.Data {
			if m.ID != "" {
				out = append(out, m.ID)
			}
		}
		if !page.HasMore || page.LastID == "" || page.LastID == after {
			break
		}
		after = page.LastID
	}
	return out, nil
}

// modelList is one page of GET /v1/models.
type modelList struct {
	Data []struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"data"`
	HasMore bool   `json:"has_more"`
	FirstID string `json:"first_id"`
	LastID  string `json:"last_id"`
}

func (p *Provider) modelPage(ctx context.Context, u string, h http.Header) (*modelList, error) {
	resp, err := p.http.Get(ctx, u, h)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, readAPIError(resp)
	}
	var page modelList
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxModelList)).Decode(&page); err != nil {
		return nil, fmt.Errorf("anthropic: list models: %w", err)
	}
	return &page, nil
}
