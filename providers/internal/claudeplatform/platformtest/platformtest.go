// Package platformtest holds what the strict fakes of the Claude platforms
// (Vertex AI, Bedrock) share: they check the platform's route, auth and body
// rules, then hand the request, turned back into a Messages API request, to
// an anthropictest fake, which applies every rule of the Messages API and
// runs its script.
package platformtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// Request is one request a platform fake received.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
	Model        string
	Stream       bool
	Status       int
	Rejection    string
}

// Log records requests safely across handlers.
type Log struct {
	mu   sync.Mutex
	reqs []*Request
}

// Add records r.
func (l *Log) Add(r *Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, r)
}

// All returns every request so far.
func (l *Log) All() []*Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*Request(nil), l.reqs...)
}

// Rejected returns the requests the fake refused.
func (l *Log) Rejected() []*Request {
	var out []*Request
	for _, r := range l.All() {
		if r.Rejection != "" {
			out = append(out, r)
		}
	}
	return out
}

// Body is a platform body split into its members.
type Body map[string]json.RawMessage

// ParseBody reads a JSON object body.
func ParseBody(b []byte) (Body, error) {
	var m Body
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("body is not a JSON object")
	}
	return m, nil
}

// Version returns anthropic_version, or "".
func (b Body) Version() string {
	var s string
	_ = json.Unmarshal(b["anthropic_version"], &s)
	return s
}

// Messages turns the platform body back into a Messages API body: model and
// stream set, anthropic_version and anthropic_beta removed (the betas are
// returned for the anthropic-beta header).
func (b Body) Messages(model string, stream bool) ([]byte, []string, error) {
	var betas []string
	if raw, ok := b["anthropic_beta"]; ok {
		if err := json.Unmarshal(raw, &betas); err != nil {
			return nil, nil, fmt.Errorf("anthropic_beta must be an array of strings")
		}
	}
	m := Body{}
	for k, v := range b {
		if k != "anthropic_version" && k != "anthropic_beta" {
			m[k] = v
		}
	}
	m["model"], _ = json.Marshal(model)
	m["stream"], _ = json.Marshal(stream)
	out, err := json.Marshal(m)
	return out, betas, err
}

// Forward posts a Messages body to the inner fake, with its key.
func Forward(ctx context.Context, inner *anthropictest.Server, body []byte, betas []string, headers http.Header) (*http.Response, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, inner.URL+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header.Set("content-type", "application/json")
	r.Header.Set("anthropic-version", "2023-06-01")
	r.Header.Set("x-api-key", anthropictest.DefaultAPIKey)
	if b := headers.Get("anthropic-beta"); b != "" {
		betas = append(betas, strings.Split(b, ",")...)
	}
	if len(betas) > 0 {
		r.Header.Set("anthropic-beta", strings.Join(betas, ","))
	}
	return http.DefaultClient.Do(r)
}

// InnerError reads the inner fake's error answer.
func InnerError(resp *http.Response) (typ, msg string) {
	data, _ := io.ReadAll(resp.Body)
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(data, &e)
	return e.Error.Type, e.Error.Message
}

// UnavailableTool is the 400 message for a server tool the platform does
// not run (Anthropic's platform availability table, anthropic.PlatformTools),
// or "". The platforms' exact words are not documented: the message is the
// API's own for a tool type it does not know.
func (b Body) UnavailableTool(platform string) string {
	have, _ := anthropic.PlatformTools(platform)
	if _, ok := b["mcp_servers"]; ok && !slices.Contains(have, "mcp") {
		return "mcp_servers: Extra inputs are not permitted"
	}
	var tools []struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(b["tools"], &tools)
	for i, t := range tools {
		alias := t.Type
		if t.Type == "mcp_toolset" {
			alias = "mcp"
		} else if j := strings.LastIndex(t.Type, "_20"); j > 0 {
			alias = t.Type[:j]
		}
		switch alias {
		case "web_search", "web_fetch", "code_execution", "mcp":
			if !slices.Contains(have, alias) {
				return fmt.Sprintf("tools.%d: Input tag '%s' found using 'type' does not match any of the expected tags", i, t.Type)
			}
		}
	}
	return ""
}
