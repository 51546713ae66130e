package openaichat

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// maxModelList bounds the body read from GET /models.
const maxModelList = 4 << 20

// ListModels asks the server which models it serves (GET {base}/models, the
// OpenAI shape that Ollama, llama.cpp, vLLM, LM Studio, OpenRouter, Groq,
// DeepSeek and Mistral all answer), for the TUI's model picker.
func (p *Provider) ListModels(ctx context.Context) ([]string, error) {
	url := strings.TrimSuffix(p.url, "/chat/completions") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: list models: %w", p.opts.Name, err)
	}
	if p.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.opts.APIKey)
	}
	for k, v := range p.opts.ExtraHeaders {
		req.Header.Set(k, v)
	}
	c := p.opts.HTTPClient
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: list models: %w", p.opts.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, p.apiError(resp)
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxModelList)).Decode(&body); err != nil {
		return nil, fmt.Errorf("%s: list models: %w", p.opts.Name, err)
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
