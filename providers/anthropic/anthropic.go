// Package anthropic is the Anthropic Messages API adapter: it renders a
// neutral agent.Request (deferred tools with defer_loading plus the native
// tool search tool, or a client-side tool_search tool), streams the answer
// back into neutral parts, and keeps the content array raw so it can be
// replayed verbatim on later requests.
package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/internal/httpx"
	"github.com/agent-dev/agent/providers/internal/toolcache"
)

const (
	providerName   = "anthropic"
	apiName        = "messages"
	DefaultBaseURL = "https://api.anthropic.com"
	DefaultVersion = "2023-06-01"
)

// Options configure the adapter. Zero values pick the defaults.
type Options struct {
	APIKey string
	// BaseURL is the API root as the SDKs take it (without /v1); a trailing
	// /v1 is tolerated.
	BaseURL    string
	HTTPClient *http.Client
	// NativeModels overrides the built-in table of models that support the
	// tool search tool, by exact model id (or "prefix*").
	NativeModels map[string]bool
	// Models is the capability table (nil: the built-in one).
	Models *models.Table
	// Version is the anthropic-version header.
	Version string
	// FirstByteTimeout and StreamIdleTimeout bound the waits of a request
	// (config first_byte_timeout and stream_idle_timeout; zero: defaults).
	FirstByteTimeout, StreamIdleTimeout time.Duration
	// Platform, when set, posts to a cloud platform serving Claude (Vertex
	// AI, Bedrock) instead of BaseURL/v1/messages.
	Platform *Platform
}

// Provider implements agent.Provider for the Messages API.
type Provider struct {
	opts  Options
	http  httpx.Client
	table *models.Table
	// noticed holds the one-time notices already given (an --effort the
	// model cannot use).
	noticed sync.Map
	// tools is the last rendered tools array (toolscache.go).
	tools toolsCache
}

var _ agent.Provider = (*Provider)(nil)

// New returns an adapter.
func New(o Options) *Provider {
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	o.BaseURL = strings.TrimSuffix(strings.TrimRight(o.BaseURL, "/"), "/v1")
	if o.Version == "" {
		o.Version = DefaultVersion
	}
	table, err := o.Models.WithNativeSearch(o.NativeModels)
	if err != nil {
		table = o.Models // the keys of a map[string]bool cannot fail validation
	}
	return &Provider{opts: o, table: table, http: httpx.Client{HTTP: o.HTTPClient, Provider: providerName,
		Timeouts: httpx.Timeouts{FirstByte: o.FirstByteTimeout, StreamIdle: o.StreamIdleTimeout}}}
}

func (p *Provider) Name() string { return providerName }
func (p *Provider) API() string  { return apiName }

// NativeSearch reports whether model has the tool search tool.
func (p *Provider) NativeSearch(model string) bool {
	return p.caps(model).NativeSearch
}

// Render returns the request body Send would post, for golden tests and
// debugging, with the resolved search mode.
func (p *Provider) Render(req *agent.Request) ([]byte, agent.SearchMode, error) {
	r, err := buildWith(req, agent.ResolveSearch(p, req), p.caps(req.Model), &p.tools)
	if err != nil {
		return nil, "", err
	}
	return toolcache.Join(r.parts), r.resolved, nil
}

// Send performs one request. It never retries: the core does.
func (p *Provider) Send(ctx context.Context, req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
	if emit == nil {
		emit = func(agent.StreamEvent) {}
	}
	if err := ValidateProviderTools(req.ProviderTools); err != nil {
		return nil, err
	}
	caps := p.caps(req.Model)
	r, err := buildWith(req, agent.ResolveSearch(p, req), caps, &p.tools)
	if err != nil {
		return nil, fmt.Errorf("anthropic: build request: %w", err)
	}
	if r.notice != "" {
		if _, seen := p.noticed.LoadOrStore(r.notice, true); !seen {
			emit(agent.StreamEvent{Type: agent.EventWarning, Text: r.notice})
		}
	}
	url, parts, betas := p.opts.BaseURL+"/v1/messages", r.parts, r.betas
	if p.opts.Platform != nil {
		// A platform rewrites (and may sign) the whole body.
		var body []byte
		url, body, betas, err = p.opts.Platform.prepare(req.Model, !req.NoStream, toolcache.Join(parts), betas)
		if err != nil {
			return nil, fmt.Errorf("anthropic: %w", err)
		}
		parts = [][]byte{body}
	}
	h := http.Header{}
	if p.opts.Platform == nil {
		h.Set("anthropic-version", p.opts.Version)
	}
	if p.opts.APIKey != "" {
		h.Set("x-api-key", p.opts.APIKey)
	}
	if len(betas) > 0 {
		h.Set("anthropic-beta", strings.Join(betas, ","))
	}
	resp, err := p.http.PostParts(ctx, url, parts, !req.NoStream, h)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, readAPIError(resp)
	}
	parser := &contentParser{req: req, emit: emit, fnSearch: r.fnSearch}
	out := &agent.Response{ToolsHash: r.toolsHash, Resolved: r.resolved, OutputLimit: r.maxTokens, OutputMax: caps.MaxOutput}
	if req.NoStream || !strings.HasPrefix(resp.Header.Get("content-type"), "text/event-stream") {
		parser.emitText = true
		if err := readBody(resp.Body, parser, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	err = readStream(resp.Body, parser, out, resp.Header.Get("request-id"))
	return out, err
}

// readBody parses a non-streaming answer.
func readBody(body io.Reader, parser *contentParser, out *agent.Response) error {
	data, err := io.ReadAll(body)
	if err != nil {
		return fmt.Errorf("anthropic: read response: %w", err)
	}
	var msg struct {
		Content    []json.RawMessage `json:"content"`
		StopReason string            `json:"stop_reason"`
		Usage      *wireUsage        `json:"usage"`
		Container  *wireContainer    `json:"container"`
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		return fmt.Errorf("anthropic: decode response: %w", err)
	}
	parser.container = msg.Container
	for i, b := range msg.Content {
		// A tool call that ends a message cut by max_tokens has half its
		// input at best: it cannot run.
		if i == len(msg.Content)-1 && msg.StopReason == "max_tokens" && blockType(b) == "tool_use" {
			out.CutCall = true
			continue
		}
		parser.add(compact(b))
	}
	out.Message = parser.message()
	out.StopReason = stopReason(msg.StopReason)
	msg.Usage.apply(&out.Usage)
	return nil
}

// wireError is the API's error body.
type wireError struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	RequestID string `json:"request_id"`
}

func readAPIError(resp *http.Response) error {
	data := httpx.ReadErrorBody(resp)
	e := &agent.APIError{
		Provider: providerName, Status: resp.StatusCode,
		RequestID: resp.Header.Get("request-id"), RetryAfter: httpx.RetryAfter(resp.Header),
	}
	var w wireError
	if json.Unmarshal(data, &w) == nil && w.Error.Type != "" {
		e.Type, e.Message = w.Error.Type, w.Error.Message
		if e.RequestID == "" {
			e.RequestID = w.RequestID
		}
	} else {
		e.Message = httpx.Snippet(data)
	}
	return e
}

// statusOf maps the error type of an in-stream error event to the HTTP
// status the same error has as a response, so retry rules apply alike.
func statusOf(typ string) int {
	switch typ {
	case "overloaded_error":
		return 529
	case "rate_limit_error":
		return 429
	case "api_error":
		return 500
	case "timeout_error":
		return 504
	case "invalid_request_error":
		return 400
	case "authentication_error":
		return 401
	case "permission_error":
		return 403
	case "not_found_error":
		return 404
	case "request_too_large":
		return 413
	}
	return 500
}

// stopReason maps Anthropic's stop_reason to the neutral one.
func stopReason(s string) agent.StopReason {
	switch s {
	case "tool_use":
		return agent.StopToolUse
	case "max_tokens", "model_context_window_exceeded":
		return agent.StopMaxTokens
	case "pause_turn":
		return agent.StopPaused
	case "refusal":
		return agent.StopRefused
	}
	return agent.StopEnd
}
